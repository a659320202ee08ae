package appliance

import (
	"context"
	"fmt"
	"log/slog"

	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/engines/sizing"
	"flipbot.dev/flipbot/flipsight"
)

// botPlayerConfig is what the real player needs besides the token and
// the settings.
type botPlayerConfig struct {
	APIURL, StreamURL string
	// Egaroucid is the Egaroucid console binary ("" when not installed).
	Egaroucid string
	// CPU is reported to FlipSight as environment.cpu (the device model).
	CPU    string
	Logger *slog.Logger
	// Records keeps the finished games (nil: none kept).
	Records bot.Recorder
}

// botPlayer runs the bot package's player with the built-in engine (and
// Egaroucid for std when the settings say so).
type botPlayer struct {
	cfg botPlayerConfig
}

func newBotPlayer(cfg botPlayerConfig) Player {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return botPlayer{cfg: cfg}
}

// Play implements Player: one bot.Bot per call, stopped by ctx.
func (p botPlayer) Play(ctx context.Context, token string, s Settings, report func(bot.Status)) error {
	t, err := flipsight.NewToken(token)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrTokenRejected, err)
	}
	client, err := flipsight.NewClient(flipsight.Config{APIURL: p.cfg.APIURL, StreamURL: p.cfg.StreamURL, Token: t})
	if err != nil {
		return fmt.Errorf("flipsight client: %w", err)
	}
	builtin := search.New(search.Options{Threads: s.Threads, HashMB: s.HashMB})
	defer builtin.Close()
	b, err := bot.New(bot.Options{
		Client:     client,
		Engine:     p.engineFactory(builtin, s),
		CPU:        p.cfg.CPU,
		MaxMatches: s.MaxMatches,
		Logger:     p.cfg.Logger,
		OnStatus:   report,
		Records:    p.cfg.Records,
	})
	if err != nil {
		return fmt.Errorf("start bot: %w", err)
	}
	err = b.Run(ctx)
	if flipsight.IsAuth(err) {
		return fmt.Errorf("%w: %w", ErrTokenRejected, err)
	}
	return err
}

// engineFactory makes the engines the settings ask for: one shared
// built-in engine, or, with Egaroucid for std, one Egaroucid per leg
// beside the shared built-in engine.
func (p botPlayer) engineFactory(builtin engines.Engine, s Settings) bot.EngineFactory {
	off := offModes(s)
	var modes []othello.Mode
	for _, m := range othello.AllModes() {
		if !off[m] {
			modes = append(modes, m)
		}
	}
	f := bot.EngineFactory{
		Name:  builtin.Name(),
		Modes: modes,
		Scope: bot.Shared,
		New:   func() (engines.Engine, error) { return &modeEngine{builtin: builtin, off: off}, nil },
	}
	if s.Engines["std"] == EngineEgaroucid && p.cfg.Egaroucid != "" {
		newStd := stdEgaroucid(p.cfg.Egaroucid, s, sizing.Detect(), p.cfg.Logger)
		if newStd == nil {
			return f
		}
		f.Name = builtin.Name() + "; std: Egaroucid"
		f.Scope = bot.PerLeg
		f.New = func() (engines.Engine, error) {
			eg, err := newStd()
			if err != nil {
				return nil, fmt.Errorf("egaroucid: %w", err)
			}
			return &modeEngine{builtin: builtin, std: eg, off: off}, nil
		}
	}
	return f
}
