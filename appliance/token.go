package appliance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/flipsight"
)

// tokenCheckTimeout bounds the agent_poll that checks a pasted token.
const tokenCheckTimeout = 20 * time.Second

// tokenOwner is the one owner of the device's token: it holds the token in
// effect and where it came from, and it alone changes them, for a paste on
// the pages, a removal, the card's token file and the start. Every change
// is made whole under changeMu and in one order: the store (/perm), then
// the token in effect here, then the status (hub), then the runner, which
// takes the token without making the change wait for the old bot to stop
// (runner.setToken never blocks).
//
// The rule between the sources: FS_BOT_TOKEN wins over every other token;
// a token pasted on the pages always wins over the card's; the card's
// token is taken only while no token is in effect (or, at the start, when
// its file is newer than the stored token). A card token checked while a
// paste was under way is dropped: the paste holds changeMu from its check
// to its last update, and the card's token is only taken, under changeMu,
// while still no token is in effect.
type tokenOwner struct {
	log     *slog.Logger
	hub     *state.Hub
	file    *store.File[flipsight.Token]
	checker TokenChecker
	runner  *runner
	pairing *pairing
	// card is the SD card's boot partition (nil: none); cardRetry is how
	// often its token is checked again after FlipSight could not be
	// reached (cardRetry; tests shorten it).
	card      store.CardTokenSource
	cardRetry time.Duration
	// env is FS_BOT_TOKEN, zero when the environment has none; envErr
	// says why the environment's is not a token.
	env    flipsight.Token
	envErr error

	// changeMu serialises the changes, each from its check with FlipSight
	// (a paste's) to its last update.
	changeMu sync.Mutex
	mu       sync.Mutex // guards the fields below; held briefly
	tok      flipsight.Token
	src      state.TokenSource
	// open: the token can be changed (the clock is set and the device is
	// not stopping).
	open bool
}

// newTokenOwner returns the owner of the token kept in file, checked by
// checker and played by r, with envRaw as FS_BOT_TOKEN ("" when unset).
func newTokenOwner(log *slog.Logger, hub *state.Hub, file *store.File[flipsight.Token], checker TokenChecker, r *runner, p *pairing, card store.CardTokenSource, envRaw string) *tokenOwner {
	o := &tokenOwner{log: log, hub: hub, file: file, checker: checker, runner: r, pairing: p, card: card, cardRetry: cardRetry, src: state.TokenNone}
	o.env, o.envErr = flipsight.NewToken(envRaw)
	if errors.Is(o.envErr, flipsight.ErrNoToken) {
		o.envErr = nil // not set
	}
	return o
}

// envWins reports whether the environment sets FS_BOT_TOKEN: it wins over
// every other token, even when it is not one.
func (o *tokenOwner) envWins() bool { return !o.env.IsZero() || o.envErr != nil }

// start decides the token at the start, once the clock is set: the
// environment's, else the card's file (applyCard), else the stored token.
// It opens the token to changes, publishes the source, hands the token to
// the runner and offers setup when there is none. It returns the card's
// token to retry (retryCard) when FlipSight could not be reached for it
// and no token is in effect (zero: none).
func (o *tokenOwner) start(ctx context.Context) (retry flipsight.Token) {
	o.mu.Lock()
	o.open = true
	o.mu.Unlock()
	o.changeMu.Lock()
	defer o.changeMu.Unlock()
	card := o.applyCard(ctx)
	tok, src := o.initial()
	if !card.memory.IsZero() && src == state.TokenNone {
		tok, src = card.memory, state.TokenMemory
	}
	o.set(tok, src, card.who)
	if src != state.TokenNone {
		return flipsight.Token{}
	}
	o.pairing.rotate("no token yet")
	return card.retry
}

// stop closes the token to changes (the device is stopping).
func (o *tokenOwner) stop() {
	o.mu.Lock()
	o.open = false
	o.mu.Unlock()
}

// initial returns the token at start: the environment's wins, else the
// stored one. (changeMu held)
func (o *tokenOwner) initial() (flipsight.Token, state.TokenSource) {
	switch stored, err := o.file.Load(); {
	case o.envErr != nil:
		o.log.Error(config.TokenEnv+" is not a bot token; set it right or unset it", "err", o.envErr)
		o.runner.refuse(config.TokenEnv + " is not a bot token: " + o.envErr.Error())
		return flipsight.Token{}, state.TokenEnv
	case !o.env.IsZero():
		o.log.Info("using the token from " + config.TokenEnv)
		return o.env, state.TokenEnv
	case err == nil:
		o.log.Info("using the saved token")
		return stored, state.TokenStored
	case errors.Is(err, store.ErrNoToken):
		o.log.Info("no token saved yet")
	default:
		o.log.Error("saved token unusable", "err", err)
	}
	return flipsight.Token{}, state.TokenNone
}

// set makes tok (from src; who is whom FlipSight said it names, zero when
// not known) the token in effect, after the store was written: here, then
// in the runner, then in the status. A zero tok with a source (a
// FS_BOT_TOKEN that is not a token) is not played. (changeMu held)
func (o *tokenOwner) set(tok flipsight.Token, src state.TokenSource, who state.BotInfo) {
	o.mu.Lock()
	old := o.tok
	o.tok, o.src = tok, src
	o.mu.Unlock()
	if !tok.IsZero() || !old.IsZero() {
		o.runner.setToken(tok, who)
	}
	o.hub.Update(func(st *state.Status) {
		st.Token = src
		if src != state.TokenNone {
			st.PairingCode = ""
		}
	})
}

// inEffect reports whether a token is in effect (FS_BOT_TOKEN counts,
// even when it is not one).
func (o *tokenOwner) inEffect() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.src != state.TokenNone
}

// setupOpen is web.Backend.SetupOpen.
func (o *tokenOwner) setupOpen() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.src != state.TokenNone:
		return web.ErrAlreadySetUp
	case !o.open:
		return web.ErrNotReady
	}
	return nil
}

// use checks tok with FlipSight, keeps it and, unless the environment's
// token is in effect, makes it the token in effect; with setup, only
// while no token is in effect (else web.ErrAlreadySetUp). It returns once
// the token is kept: the old bot stops in the background. Nothing it
// returns or logs holds the token.
func (o *tokenOwner) use(ctx context.Context, tok flipsight.Token, setup bool) (web.TokenUse, error) {
	o.changeMu.Lock()
	defer o.changeMu.Unlock()
	o.mu.Lock()
	src, open := o.src, o.open
	o.mu.Unlock()
	switch {
	case setup && src != state.TokenNone:
		return web.TokenUse{}, web.ErrAlreadySetUp
	case !open:
		return web.TokenUse{}, web.ErrNotReady
	}
	who, err := o.check(ctx, tok, "a pasted token")
	if err != nil {
		return web.TokenUse{Bot: who}, err
	}
	use := o.save(tok, who)
	if o.envWins() {
		use.EnvWins = true
		return use, nil
	}
	o.set(tok, use.Source, who)
	return use, nil
}

// check checks tok with FlipSight (what names it in the log). The error
// wraps web.ErrTokenRejected for FlipSight's refusal, else says why
// FlipSight could not be asked; it never holds the token.
func (o *tokenOwner) check(ctx context.Context, tok flipsight.Token, what string) (state.BotInfo, error) {
	cctx, cancel := context.WithTimeout(ctx, tokenCheckTimeout)
	who, err := o.checker.CheckToken(cctx, tok)
	cancel()
	switch {
	case errors.Is(err, ErrTokenRejected):
		o.log.Warn(what + " was rejected by FlipSight")
		return who, fmt.Errorf("%w: %s", web.ErrTokenRejected, redact(err.Error(), tok))
	case err != nil:
		err = errors.New(redact(err.Error(), tok))
		o.log.Warn("could not check "+what, "err", err)
		return who, err
	}
	return who, nil
}

// save keeps a checked tok on /perm: the use's Source is
// state.TokenStored, or state.TokenMemory when /perm could not keep it
// (SaveErr says why). (changeMu held)
func (o *tokenOwner) save(tok flipsight.Token, who state.BotInfo) web.TokenUse {
	if err := o.file.Save(tok); err != nil {
		o.log.Error("token checked but not saved", "err", redact(err.Error(), tok))
		return web.TokenUse{Bot: who, Source: state.TokenMemory, SaveErr: err}
	}
	o.log.Info("token saved", "bot", who.Name)
	return web.TokenUse{Bot: who, Source: state.TokenStored}
}

// remove deletes the saved token and, unless the environment's token is
// in effect, stops the bot (in the background) and starts setup with a
// new pairing code.
func (o *tokenOwner) remove() error {
	o.changeMu.Lock()
	defer o.changeMu.Unlock()
	o.mu.Lock()
	open := o.open
	o.mu.Unlock()
	if !open {
		return web.ErrNotReady
	}
	if err := o.file.Remove(); err != nil {
		o.log.Error("remove token", "err", err)
		return err
	}
	o.log.Info("saved token removed")
	o.pairing.newSetup()
	if o.envWins() {
		return nil
	}
	o.set(flipsight.Token{}, state.TokenNone, state.BotInfo{})
	o.pairing.rotate("token removed")
	return nil
}

// redact removes tok from s (errors of lower layers should never hold it;
// this is the last guard before a page or a log).
func redact(s string, tok flipsight.Token) string {
	if tok.IsZero() {
		return s
	}
	return strings.ReplaceAll(s, tok.Reveal(), "[token]")
}
