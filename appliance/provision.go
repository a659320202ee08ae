package appliance

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/flipsight"
)

// tokenCheckTimeout bounds the agent_poll that checks a pasted token.
const tokenCheckTimeout = 20 * time.Second

// UseToken implements web.Backend: it checks tok with FlipSight, keeps it
// and, unless the environment's token is in effect, starts the bot with
// it. Nothing it returns or logs holds the token.
func (a *app) UseToken(ctx context.Context, tok flipsight.Token) web.TokenUse {
	a.tokenMu.Lock()
	defer a.tokenMu.Unlock()
	use := a.checkAndSaveLocked(ctx, tok, "a pasted token")
	if use.Source == state.TokenNone {
		return use
	}
	if a.envWins() {
		use.EnvWins = true
		return use
	}
	a.hub.Update(func(st *state.Status) {
		st.Token = use.Source
		st.PairingCode = ""
	})
	a.runner.setToken(a.ctx, tok, use.Bot)
	return use
}

// checkAndSave checks tok with FlipSight (what names it in the log) and
// saves it to the store. The use's Source is state.TokenStored, or
// state.TokenMemory when the check passed but /perm could not keep the
// token (Err is then the save error), or state.TokenNone with Rejected
// (FlipSight's refusal) or Err (a failure to check it, the token
// redacted).
func (a *app) checkAndSave(ctx context.Context, tok flipsight.Token, what string) web.TokenUse {
	a.tokenMu.Lock()
	defer a.tokenMu.Unlock()
	return a.checkAndSaveLocked(ctx, tok, what)
}

// checkAndSaveLocked is checkAndSave with tokenMu held.
func (a *app) checkAndSaveLocked(ctx context.Context, tok flipsight.Token, what string) web.TokenUse {
	cctx, cancel := context.WithTimeout(ctx, tokenCheckTimeout)
	info, err := a.checker.CheckToken(cctx, tok)
	cancel()
	switch {
	case errors.Is(err, ErrTokenRejected):
		a.log.Warn(what + " was rejected by FlipSight")
		return web.TokenUse{Bot: info, Source: state.TokenNone, Rejected: true, Err: err}
	case err != nil:
		err = errors.New(redact(err.Error(), tok))
		a.log.Warn("could not check "+what, "err", err)
		return web.TokenUse{Bot: info, Source: state.TokenNone, Err: err}
	}
	if err := a.tokens.Save(tok); err != nil {
		a.log.Error("token checked but not saved", "err", redact(err.Error(), tok))
		return web.TokenUse{Bot: info, Source: state.TokenMemory, Err: err}
	}
	a.log.Info("token saved", "bot", info.Name)
	return web.TokenUse{Bot: info, Source: state.TokenStored}
}

// redact removes tok from s (errors of lower layers should never hold it;
// this is the last guard before a page or a log).
func redact(s string, tok flipsight.Token) string {
	if tok.IsZero() {
		return s
	}
	return strings.ReplaceAll(s, tok.Reveal(), "[token]")
}

// RemoveToken implements web.Backend: it deletes the saved token, stops
// the bot (unless the environment's token is in effect) and starts setup
// with a new code.
func (a *app) RemoveToken() error {
	a.tokenMu.Lock()
	defer a.tokenMu.Unlock()
	if err := a.tokens.Remove(); err != nil {
		a.log.Error("remove token", "err", err)
		return err
	}
	a.log.Info("saved token removed")
	a.mu.Lock()
	a.longCode = false // a new setup, asked for by the owner
	a.mu.Unlock()
	if a.envWins() {
		return nil
	}
	a.runner.setToken(a.ctx, flipsight.Token{}, state.BotInfo{})
	a.hub.Update(func(st *state.Status) { st.Token = state.TokenNone })
	a.rotatePairingCode("token removed")
	return nil
}

// PairingCode implements web.Backend: the current code.
func (a *app) PairingCode() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.code
}

// HardenPairingCode implements web.Backend: after too many wrong codes from
// all clients the code becomes twelve digits (a fresh one each time), shown
// on the display and in the log as before. Nobody is locked out: the owner
// reads the new code off the device; guessing it is hopeless (SECURITY.md).
func (a *app) HardenPairingCode() {
	a.mu.Lock()
	a.longCode = true
	a.mu.Unlock()
	a.rotatePairingCode("too many wrong pairing codes: the code is twelve digits now")
}

// rotatePairingCode makes a new code, publishes it and logs it (gokrazy's
// web UI shows the log to the owner only).
func (a *app) rotatePairingCode(why string) {
	a.mu.Lock()
	long := a.longCode
	a.mu.Unlock()
	newCode := newPairingCode
	if long {
		newCode = newLongPairingCode
	}
	code, err := newCode()
	if err != nil {
		a.log.Error("new pairing code", "err", err)
		return
	}
	a.mu.Lock()
	a.code = code
	a.mu.Unlock()
	// Log before publishing, so that whoever sees the code on the display
	// finds it in the log too.
	if st := a.hub.Snapshot(); st.Token == state.TokenNone {
		a.log.Info("setup needed: open the page and type the pairing code", "pairing_code", code, "pages", strings.Join(st.Device.PageURLs, " "), "why", why)
	}
	a.hub.Update(func(st *state.Status) {
		if st.Token == state.TokenNone {
			st.PairingCode = code
		}
	})
}

// PairingCodeLogInterval is how often the pairing code is logged again
// while setup is needed, so that it is always among the last lines of
// gokrazy's log (it keeps 100), whatever else was logged meanwhile.
const PairingCodeLogInterval = time.Minute

// remindPairingCode logs the pairing code again every a.codeLogEvery while
// setup is needed, until ctx ends.
func (a *app) remindPairingCode(ctx context.Context) {
	t := time.NewTicker(a.codeLogEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		st := a.hub.Snapshot()
		code := a.PairingCode()
		if st.Token != state.TokenNone || st.Phase != state.PhaseRunning || code == "" {
			continue
		}
		a.log.Info("setup needed: open the page and type the pairing code", "pairing_code", code,
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
