package appliance

import (
	"context"
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

// applyCardToken looks at the card's token file at start, before the
// setup page is offered. With no stored token, a well-formed token from it
// is checked with FlipSight like a pasted one and, if accepted, saved to
// /perm; a stored token is replaced only by a different token in a file
// newer than it. It never writes to the card. It returns what the start
// must do next.
func (a *app) applyCardToken(ctx context.Context) cardStart {
	if a.cfg.CardToken == nil {
		return cardStart{}
	}
	data, mod, ok, err := a.cfg.CardToken.ReadCardToken()
	if err != nil && !ok {
		a.log.Warn("could not read the card's boot partition", "err", err)
		return cardStart{}
	}
	if !ok {
		return cardStart{}
	}
	set := func(o state.CardOutcome, msg string) {
		a.hub.Update(func(st *state.Status) { st.Card = state.CardToken{Present: true, Outcome: o, Message: msg} })
	}
	var tok flipsight.Token
	if err == nil {
		tok, err = store.ParseTokenFile(data)
	}
	if err != nil {
		a.log.Warn("token file on the card not usable", "file", store.BootTokenFileName, "err", err)
		set(state.CardInvalid, fmt.Sprintf("%s on the card: %v", store.BootTokenFileName, err))
		return cardStart{}
	}
	if a.envWins() {
		a.log.Info("token source: " + config.TokenEnv + "; the card's token file is ignored")
		set(state.CardEnv, config.TokenEnv+" is set and wins over the card's token file.")
		return cardStart{}
	}
	stored, serr := a.tokens.Load()
	if serr == nil {
		if stored.Equal(tok) {
			a.log.Info("token source: stored (the card's token file holds the same token)")
			set(state.CardSame, "The card's token file holds the stored token.")
			return cardStart{}
		}
		if smod, err := a.tokens.ModTime(); err == nil && !mod.After(smod) {
			a.log.Info("token source: stored (the card's token file holds another token but is not newer; ignored)")
			set(state.CardOlder, "The card's token file holds another token but is older than the stored one: ignored.")
			return cardStart{}
		}
	}
	a.hub.Update(func(st *state.Status) {
		st.Card = state.CardToken{Present: true, Message: "Checking the card's token with FlipSight…"}
	})
	use := a.checkAndSave(ctx, tok, "the card's token")
	switch {
	case use.Source == state.TokenMemory:
	case use.Rejected:
		msg := "FlipSight refused the token in " + store.BootTokenFileName + "."
		if serr == nil {
			msg += " The stored token stays in effect."
		} else {
			msg += " Set up on this page instead, or put a new token on the card."
		}
		set(state.CardRefused, msg)
		return cardStart{}
	case use.Err != nil:
		set(state.CardUnchecked, fmt.Sprintf("Could not check the card's token with FlipSight (%v); trying again every %s.", use.Err, a.cardRetry))
		if serr == nil {
			return cardStart{} // the stored token runs; the card is tried at the next start
		}
		return cardStart{retry: tok}
	}
	card := a.cardUsed(use)
	a.hub.Update(func(st *state.Status) { st.Card = card })
	if use.Source == state.TokenMemory {
		return cardStart{memory: tok, who: use.Bot}
	}
	return cardStart{who: use.Bot}
}

// retryCardToken tries a card token that could not be checked at start,
// until it is accepted or refused, or another token is in effect.
func (a *app) retryCardToken(ctx context.Context, tok flipsight.Token) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(a.cardRetry):
		}
		if a.hub.Snapshot().Token != state.TokenNone {
			return
		}
		use := a.checkAndSave(ctx, tok, "the card's token")
		if use.Rejected {
			a.hub.Update(func(st *state.Status) {
				st.Card = state.CardToken{Present: true, Outcome: state.CardRefused, Message: "FlipSight refused the token in " + store.BootTokenFileName + ". Set up on this page instead."}
			})
			return
		}
		if use.Err != nil && use.Source != state.TokenMemory {
			continue
		}
		card := a.cardUsed(use)
		a.hub.Update(func(st *state.Status) {
			st.Card = card
			st.Token, st.PairingCode = use.Source, ""
		})
		a.runner.setToken(a.ctx, tok, use.Bot)
		return
	}
}

// cardUsed logs that the card's token won and returns its status.
func (a *app) cardUsed(use web.TokenUse) state.CardToken {
	info := use.Bot
	a.log.Info("token source: the card's token file (checked with FlipSight and saved)", "bot", info.Name, "kept", use.Source)
	return state.CardToken{Present: true, Outcome: state.CardUsed, Message: fmt.Sprintf("The token from %s was accepted for bot %s and saved.", store.BootTokenFileName, info.Name)}
}
