package appliance

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/flipsight"
)

// FlipSightChecker checks a token with one real agent_poll (without an
// environment, so the server's record of the bot's engine is unchanged).
type FlipSightChecker struct {
	// APIURL and StreamURL are the service's addresses (the defaults when
	// empty; a loopback http URL for a local arena).
	APIURL, StreamURL string
	// HTTPClient carries the request (a default transport when nil).
	HTTPClient *http.Client
}

// CheckToken implements TokenChecker.
func (c FlipSightChecker) CheckToken(ctx context.Context, tok flipsight.Token) (state.BotInfo, error) {
	cl, err := flipsight.NewClient(flipsight.Config{APIURL: c.APIURL, StreamURL: c.StreamURL, Token: tok, HTTPClient: c.HTTPClient})
	if err != nil {
		return state.BotInfo{}, fmt.Errorf("check token: %w", err)
	}
	resp, err := cl.Poll(ctx, nil)
	if err != nil {
		return state.BotInfo{}, classifyFlipSightError(err)
	}
	if resp.Bot == nil {
		return state.BotInfo{}, errors.New("check token: agent_poll answered without the bot")
	}
	return botInfoFromWire(resp.Bot), nil
}

// classifyFlipSightError maps a client error onto the appliance's by
// flipsight's rules: a 401 to ErrTokenRejected, a failure to get any
// answer (flipsight.IsNetwork) to ErrNetwork.
func classifyFlipSightError(err error) error {
	switch {
	case flipsight.IsAuth(err):
		return fmt.Errorf("%w: %w", ErrTokenRejected, err)
	case flipsight.IsNetwork(err):
		return fmt.Errorf("%w: %w", ErrNetwork, err)
	default:
		return err
	}
}

func botInfoFromWire(b *flipsight.Bot) state.BotInfo {
	info := state.BotInfo{ID: b.ID, Name: b.Name}
	if b.Rating != nil {
		info.Rating = b.Rating.Rating
	}
	return info
}
