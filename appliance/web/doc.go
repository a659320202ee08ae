// Package web is the appliance's pages and their API on port 8080: the
// first-boot setup page, the status page and /api/status, the token and
// settings pages behind the admin password, the games pages and their
// downloads, and the security around them.
//
// The pages know the appliance only through a small interface, in the
// shape of tailscale's ipn/localapi over ipnlocal: they read the status
// from a state.Hub and ask a [Backend] (the appliance) for everything they
// do — check and keep a token, remove it, apply settings, refresh the
// device facts. They never touch the files, the bot or the indicators.
// [New] takes both in a [Config]; the [Handler] it returns serves every
// page.
//
// One route table and one middleware chain (server.go): security headers
// on every answer, the Host header checked against the device's names
// (DNS rebinding), cross-origin form posts refused, then the routes; the
// token and settings pages behind the admin password (HTTP Basic, user
// [AdminUser], gokrazy's password); every form carrying a CSRF token;
// wrong pairing codes and passwords limited per client and counted before
// the form is read ([FailPerClient] per [FailWindow]; [FailGlobal] from the
// whole LAN make the code longer, locking nobody out; SECURITY.md). The
// token is never sent back to a browser, and a page names what went wrong
// with /perm without its path.
//
// Files:
//
//   - server.go: [Handler], [Config], [New], the route table, the
//     middleware chain, the admin guard, rendering.
//   - backend.go: [Backend], what the pages ask of the appliance,
//     [TokenUse], and the errors of its token methods the pages act on
//     ([ErrNotReady], [ErrAlreadySetUp], [ErrTokenRejected]).
//   - provision.go: the setup page (pairing code and token) and the token
//     page, which decide by the backend's errors, not by the status.
//   - status.go: the status page, its live part (with the mirror of the
//     LEDs and the display, Backend.Mirror), /display.png (the display's
//     screen, Backend.DisplayPNG) and /api/status; ratings.go: the status page's rating graph in SVG.
//   - settings_page.go: the settings page.
//   - games.go: the games list and the games' API and downloads (the
//     analysis JSON among them); a list reads one page and the store's
//     running tallies, at most four at once; exports stream game by game,
//     one at a time.
//   - replay.go, replay.html, replay.js: the replay page: the board and
//     the score graph drawn in SVG by the server at any position
//     (?ply=N), the move list, the positions' panels, and the script that
//     steps through them in place (keys ← → Home End, clicks). The board
//     is internal/boardview's drawing, the arena's too.
//   - templates.go: the page templates (*.html) and their functions.
//   - static.go: /static/ (style.css, board.css from internal/boardview,
//     refresh.js, replay.js and nothing else).
//   - auth.go: the admin password and the pairing code's comparison.
//   - csrf.go: the CSRF tokens; flash.go: one notice per browser.
//   - hostcheck.go: the Host check; ratelimit.go: the failure limiter,
//     keyed by IPv4 address or IPv6 /64.
//   - refusals.go: refused requests logged in aggregate (at most a line
//     per kind per [RefusalLogInterval]).
//
// It may import appliance/state, appliance/settings, appliance/ratings
// (the rating history it draws) and appliance/store (the token's form, the
// kinds of storage failure), bot/record and engines/othello (the games,
// their analyses and their replay), internal/boardview (the replay's
// board, drawn as the arena draws its boards), flipsight (the token's type) and
// config (the token's environment variable's name), and never the package
// appliance itself, which imports it.
package web
