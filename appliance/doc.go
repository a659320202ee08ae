// Package appliance is the flipbot runtime on a Raspberry Pi under gokrazy
// (and, with a directory standing in for /perm, on a PC).
//
// The appliance keeps one bot online on FlipSight without a terminal: the
// owner pastes the bot token into a web page on port 8080, guarded by a
// six-digit pairing code that only the device shows (display and log), and
// watches the LEDs. Everything the device knows is one state.Status, kept
// by a state.Hub and published to the web pages, /api/status and the
// indicators (package appliance/state).
//
// Files are named by what they do:
//
//   - indicators.go: the LEDs and display (package gpio), each state
//     mapped onto the gpio package's own input.
//   - package appliance/store: the token and settings files on /perm (0600,
//     atomic) and the card's token file.
//   - storage.go: whether /perm is there and writable, and its free space.
//   - package appliance/settings: engine and hardware settings, kept as JSON
//     on /perm.
//   - provision.go: the first-boot page (pairing code + token) and the token page.
//   - status.go: the status page and /api/status.
//   - auth.go, csrf.go, ratelimit.go: admin password, CSRF tokens, rate limits.
//   - listeners.go: binding the pages to private addresses only.
//   - runner.go: starting, restarting and stopping the bot as the token changes.
//   - lifecycle.go: [Run], the clock, signals and exit codes gokrazy needs.
//   - device*.go: facts about the machine; gokrazy calls sit behind the
//     gokrazy build tag.
//
// The token is a secret: it is never logged, never put in an error message
// and never sent back to a browser.
package appliance
