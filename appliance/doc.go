// Package appliance is the flipbot runtime on a Raspberry Pi under gokrazy
// (and, with a directory standing in for /perm, on a PC).
//
// The appliance keeps one bot online on FlipSight without a terminal: the
// owner pastes the bot token into a web page on port 8080, guarded by a
// six-digit pairing code that only the device shows (display and log), and
// watches the LEDs. Everything the device knows is one state.Status, kept
// by a state.Hub and published to the web pages, /api/status and the
// indicators.
//
// This package runs the device; its other concerns are packages of their
// own:
//
//   - appliance/state: the state model (Kind, Status with the bot's Report,
//     Hub).
//   - appliance/web: the pages and their security, which reach the
//     appliance only through web.Backend (implemented here by the app).
//   - appliance/store: the files on /perm (one atomic file store for the
//     token and the settings) and the card's token file.
//   - appliance/settings: the owner's settings.
//   - appliance/ratings: the bot's rating history and its file.
//   - appliance/bootfs: reading the FAT boot partition.
//   - appliance/mdns: answering multicast DNS for HOSTNAME.local and
//     announcing the pages over DNS-SD (on the device only).
//
// Files here, by what they do:
//
//   - lifecycle.go: [Run], [Config], the app that composes the parts
//     (each the owner of one thing), the start-up (storage, settings,
//     token), the clock, signals ([NotifyStop]) and exit codes gokrazy
//     needs.
//   - main.go: [Main], `flipbot appliance` with the real checker, player
//     and indicators; the PC's admin password.
//   - runner.go: starting, restarting and draining the bot as the token
//     (handed over by the token's owner, never waited for) and settings
//     change ([Player], [TokenChecker]); the one writer of the status's
//     bot report.
//   - botstatus.go: the bot's report (bot.Status) copied into the
//     status's own types (state.Report).
//   - analyse.go: the background analysis of the kept games
//     (bot/analysis) while no match runs, stopped at once when the runner
//     hears of one (the match gate).
//   - ratinghistory.go: the bot's rating sampled from the runner's
//     reports, kept by appliance/ratings.
//   - results.go: the recent results, merged across bots (a new token,
//     new settings) and kept on /perm ([ResultsFileName], the newest
//     [MaxResults]), read back at the start.
//   - token.go: the one owner of the token (tokenOwner): the token in
//     effect and its source, changed whole and in one order (store, then
//     runner, then status) for a paste, a removal, the card's file and the
//     start; FS_BOT_TOKEN wins, a pasted token wins over the card's, and
//     no page waits for the old bot to stop.
//   - provision.go: web.Backend's token side (the owner's errors for the
//     pages: web.ErrNotReady, web.ErrAlreadySetUp,
//     web.ErrTokenRejected) and the pairing code (logged again every
//     [PairingCodeLogInterval] while setup is needed).
//   - settings.go: web.Backend's settings side: the settings in effect
//     (settingsKeeper) and applying new ones without a reboot.
//   - cardtoken.go: the token file on the SD card at start, and its retry
//     when FlipSight could not be reached.
//   - netup.go: whether the device's network is up (an address and a
//     default route from Linux's route tables), so that the pages tell
//     "FlipSight unreachable" from "No network".
//   - storage.go, storage_unix.go, storage_other.go: whether /perm is
//     there and writable, and its free space.
//   - listeners.go: binding the pages to private addresses only, following
//     address changes, with short header and idle timeouts; on the device,
//     the name HOSTNAME.local and the pages' DNS-SD announcement on those
//     addresses (appliance/mdns).
//   - connlimit.go: at most [DefaultMaxPageConns] open connections per page
//     listener, so that page connections cannot take the descriptors the
//     bot needs; a quarter of them per client (web.ClientKey), a short
//     queue, idle connections closed to make room, the rest refused at
//     once, so that nobody can hold the pages.
//   - device.go, device_gokrazy.go, device_pc.go: the [Platform] (the
//     machine's model, the pages' addresses, the clock), gokrazy's calls
//     behind the gokrazy build tag, gokrazy's password files.
//   - indicators.go: the LEDs and display (package gpio): ToGPIOStatus maps
//     the status onto the gpio package's typed input (indicatorKind, a
//     state.Kind to its gpio.Kind).
//   - mirror.go: web.Backend's mirror of the indicators: the three LEDs'
//     patterns (gpio.StatusLEDs) and the display's screen as a PNG
//     (gpio.Preview), from the status that drives them, rendered once per
//     change.
//   - checker.go: the token check, one real agent_poll, its errors
//     classified by flipsight's rules.
//   - player.go, egaroucid_pool.go: the bot's engines, as providers of
//     engines/…: the built-in engine shared by every match
//     (engines.Shared), routed by mode (route.Provider, modes turned off),
//     std opened on an egaroucid.Pool sized for the device (engines/sizing)
//     that gives each std match a warm pair or the built-in engine; the
//     appliance makes no engine session itself.
//
// It may import its sub-packages, bot and bot/record, engines and, for the
// engine composition, engines/egaroucid, engines/eval, engines/othello,
// engines/route, engines/search and engines/sizing, engines/proc (one
// stderr budget for all the engines, main.go), and flipsight, gpio and
// config; none of them imports it. Its end-to-end tests also play against
// the arena.
//
// The token is a secret: it is a flipsight.Token from where it is read,
// never logged, never put in an error message and never sent back to a
// browser.
package appliance
