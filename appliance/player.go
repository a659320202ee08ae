package appliance

import (
	"context"
	"errors"
	"log/slog"
)

// botPlayerConfig is what the real player needs besides the token and
// the settings.
type botPlayerConfig struct {
	APIURL, StreamURL string
	Egaroucid         string
	Logger            *slog.Logger
}

// errNoPlayer is returned until the bot package's player is wired in.
var errNoPlayer = errors.New("the bot package's player is not available in this build yet")

// botPlayer adapts the bot package to Player.
type botPlayer struct {
	cfg botPlayerConfig
}

func newBotPlayer(cfg botPlayerConfig) Player { return botPlayer{cfg: cfg} }

// Play is a placeholder until the bot package exposes its run loop.
func (p botPlayer) Play(ctx context.Context, token string, s Settings, report func(BotReport)) error {
	return errNoPlayer
}
