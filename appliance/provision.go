package appliance

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/flipsight"
)

// SetupOpen implements web.Backend: nil while the setup form may set a
// token.
func (a *app) SetupOpen() error { return a.token.setupOpen() }

// SetUpToken implements web.Backend: the setup form's token, taken only
// while no token is in effect.
func (a *app) SetUpToken(ctx context.Context, tok flipsight.Token) (web.TokenUse, error) {
	return a.token.use(ctx, tok, true)
}

// UseToken implements web.Backend: it checks tok with FlipSight, keeps it
// and, unless the environment's token is in effect, starts the bot with
// it. Nothing it returns or logs holds the token.
func (a *app) UseToken(ctx context.Context, tok flipsight.Token) (web.TokenUse, error) {
	return a.token.use(ctx, tok, false)
}

// RemoveToken implements web.Backend: it deletes the saved token, stops
// the bot (unless the environment's token is in effect) and starts setup
// with a new code.
func (a *app) RemoveToken() error { return a.token.remove() }

// PairingCode implements web.Backend: the current code.
func (a *app) PairingCode() string { return a.pairing.current() }

// HardenPairingCode implements web.Backend: after too many wrong codes from
// all clients the code becomes twelve digits (a fresh one each time), shown
// on the display and in the log as before. Nobody is locked out: the owner
// reads the new code off the device; guessing it is hopeless (SECURITY.md).
func (a *app) HardenPairingCode() { a.pairing.harden() }

// pairing is the pairing code the setup form must carry: made while no
// token is in effect, published in the status (display) and logged.
type pairing struct {
	log *slog.Logger
	hub *state.Hub
	// logEvery is how often the code is logged again while setup is
	// needed (PairingCodeLogInterval; tests shorten it).
	logEvery time.Duration

	mu   sync.Mutex // guards the fields below
	code string
	long bool // too many wrong codes: the codes are twelve digits now
}

// current returns the current code ("" before the first).
func (p *pairing) current() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code
}

// harden makes the codes twelve digits, starting with a new one now.
func (p *pairing) harden() {
	p.mu.Lock()
	p.long = true
	p.mu.Unlock()
	p.rotate("too many wrong pairing codes: the code is twelve digits now")
}

// newSetup makes the codes six digits again: a new setup, asked for by the
// owner.
func (p *pairing) newSetup() {
	p.mu.Lock()
	p.long = false
	p.mu.Unlock()
}

// rotate makes a new code, publishes it and logs it (gokrazy's web UI
// shows the log to the owner only).
func (p *pairing) rotate(why string) {
	p.mu.Lock()
	long := p.long
	p.mu.Unlock()
	newCode := newPairingCode
	if long {
		newCode = newLongPairingCode
	}
	code, err := newCode()
	if err != nil {
		p.log.Error("new pairing code", "err", err)
		return
	}
	p.mu.Lock()
	p.code = code
	p.mu.Unlock()
	// Log before publishing, so that whoever sees the code on the display
	// finds it in the log too.
	if st := p.hub.Snapshot(); st.Token == state.TokenNone {
		p.log.Info("setup needed: open the page and type the pairing code", "pairing_code", code, "pages", strings.Join(st.Device.PageURLs, " "), "why", why)
	}
	p.hub.Update(func(st *state.Status) {
		if st.Token == state.TokenNone {
			st.PairingCode = code
		}
	})
}

// PairingCodeLogInterval is how often the pairing code is logged again
// while setup is needed, so that it is always among the last lines of
// gokrazy's log (it keeps 100), whatever else was logged meanwhile.
const PairingCodeLogInterval = time.Minute

// remind logs the code again every p.logEvery while setup is needed,
// until ctx ends.
func (p *pairing) remind(ctx context.Context) {
	t := time.NewTicker(p.logEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st := p.hub.Snapshot()
		code := p.current()
		if st.Token != state.TokenNone || st.Phase != state.PhaseRunning || code == "" {
			continue
		}
		p.log.Info("setup needed: open the page and type the pairing code", "pairing_code", code,
			"pages", strings.Join(st.Device.PageURLs, " "), "why", "reminder")
	}
}

// newPairingCode returns six random decimal digits from crypto/rand.
func newPairingCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("pairing code: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// newLongPairingCode returns twelve random decimal digits from
// crypto/rand, grouped by four with dashes: the code after too many wrong
// tries (SECURITY.md).
func newLongPairingCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000_000_000))
	if err != nil {
		return "", fmt.Errorf("pairing code: %w", err)
	}
	s := fmt.Sprintf("%012d", n.Int64())
	return s[:4] + "-" + s[4:8] + "-" + s[8:], nil
}
