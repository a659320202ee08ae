package appliance

import (
	"context"
	"errors"
	"fmt"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/flipsight"
)

// cardRetry is how often a card token that could not be checked (no
// network) is tried again while no token is in effect.
const cardRetry = 30 * time.Second

// cardStart is what the card's token file leaves the start to do: keep
// trying a token in the background when FlipSight could not be reached
// (retry), run until the next start with a checked token that /perm could
// not keep (memory); who is whom FlipSight said the card's token names,
// when it was used.
type cardStart struct {
	retry, memory flipsight.Token
	who           state.BotInfo
}

// applyCard looks at the card's token file at start, before the setup
// page is offered. With no stored token, a well-formed token from it is
// checked with FlipSight like a pasted one and, if accepted, saved to
// /perm; a stored token is replaced only by a different token in a file
// newer than it. It never writes to the card. It returns what the start
// must do next. (changeMu held)
func (o *tokenOwner) applyCard(ctx context.Context) cardStart {
	if o.card == nil {
		return cardStart{}
	}
	data, mod, ok, err := o.card.ReadCardToken()
	if err != nil && !ok {
		o.log.Warn("could not read the card's boot partition", "err", err)
		return cardStart{}
	}
	if !ok {
		return cardStart{}
	}
	set := func(c state.CardOutcome, msg string) {
		o.hub.Update(func(st *state.Status) { st.Card = state.CardToken{Present: true, Outcome: c, Message: msg} })
	}
	var tok flipsight.Token
	if err == nil {
		tok, err = store.ParseTokenFile(data)
	}
	if err != nil {
		o.log.Warn("token file on the card not usable", "file", store.BootTokenFileName, "err", err)
		set(state.CardInvalid, fmt.Sprintf("%s on the card: %v", store.BootTokenFileName, err))
		return cardStart{}
	}
	if o.envWins() {
		o.log.Info("token source: " + config.TokenEnv + "; the card's token file is ignored")
		set(state.CardEnv, config.TokenEnv+" is set and wins over the card's token file.")
		return cardStart{}
	}
	stored, serr := o.file.Load()
	if serr == nil {
		if stored.Equal(tok) {
			o.log.Info("token source: stored (the card's token file holds the same token)")
			set(state.CardSame, "The card's token file holds the stored token.")
			return cardStart{}
		}
		if smod, err := o.file.ModTime(); err == nil && !mod.After(smod) {
			o.log.Info("token source: stored (the card's token file holds another token but is not newer; ignored)")
			set(state.CardOlder, "The card's token file holds another token but is older than the stored one: ignored.")
			return cardStart{}
		}
	}
	o.hub.Update(func(st *state.Status) {
		st.Card = state.CardToken{Present: true, Message: "Checking the card's token with FlipSight…"}
	})
	who, err := o.check(ctx, tok, "the card's token")
	switch {
	case errors.Is(err, web.ErrTokenRejected):
		msg := "FlipSight refused the token in " + store.BootTokenFileName + "."
		if serr == nil {
			msg += " The stored token stays in effect."
		} else {
			msg += " Set up on this page instead, or put a new token on the card."
		}
		set(state.CardRefused, msg)
		return cardStart{}
	case err != nil:
		set(state.CardUnchecked, fmt.Sprintf("Could not check the card's token with FlipSight (%v); trying again every %s.", err, o.cardRetry))
		if serr == nil {
			return cardStart{} // the stored token runs; the card is tried at the next start
		}
		return cardStart{retry: tok}
	}
	use := o.save(tok, who)
	card := o.cardUsed(use)
	o.hub.Update(func(st *state.Status) { st.Card = card })
	if use.Source == state.TokenMemory {
		return cardStart{memory: tok, who: who}
	}
	return cardStart{who: who}
}

// retryCard tries a card token that could not be checked at start, until
// it is accepted or refused, or another token is in effect. It checks the
// token without holding changeMu, so that a paste meanwhile never waits
// for it, and takes it, under changeMu, only while still no token is in
// effect: a token pasted meanwhile wins.
func (o *tokenOwner) retryCard(ctx context.Context, tok flipsight.Token) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(o.cardRetry):
		}
		if o.inEffect() {
			return
		}
		who, err := o.check(ctx, tok, "the card's token")
		if errors.Is(err, web.ErrTokenRejected) {
			o.hub.Update(func(st *state.Status) {
				st.Card = state.CardToken{Present: true, Outcome: state.CardRefused, Message: "FlipSight refused the token in " + store.BootTokenFileName + ". Set up on this page instead."}
			})
			return
		}
		if err != nil {
			continue
		}
		o.takeCard(tok, who)
		return
	}
}

// takeCard makes the card's checked token the token in effect unless one
// is in effect by now.
func (o *tokenOwner) takeCard(tok flipsight.Token, who state.BotInfo) {
	o.changeMu.Lock()
	defer o.changeMu.Unlock()
	if o.inEffect() {
		o.log.Info("the card's token is not used: another token was set meanwhile")
		return
	}
	use := o.save(tok, who)
	card := o.cardUsed(use)
	o.hub.Update(func(st *state.Status) { st.Card = card })
	o.set(tok, use.Source, who)
}

// cardUsed logs that the card's token won and returns its status.
func (o *tokenOwner) cardUsed(use web.TokenUse) state.CardToken {
	info := use.Bot
	o.log.Info("token source: the card's token file (checked with FlipSight and saved)", "bot", info.Name, "kept", use.Source)
	return state.CardToken{Present: true, Outcome: state.CardUsed, Message: fmt.Sprintf("The token from %s was accepted for bot %s and saved.", store.BootTokenFileName, info.Name)}
}
