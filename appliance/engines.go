package appliance

import (
	"context"
	"fmt"
	"log/slog"

	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/sizing"
)

// modeEngine plays each game mode with the engine the settings choose: the
// shared built-in engine, or (std only) an Egaroucid instance of its own.
// Modes set to "off" are not supported, so the bot rejects them.
type modeEngine struct {
	builtin engines.Engine // shared; closed by the owner of the player, not here
	std     engines.Engine // Egaroucid for std, or nil; closed by Close
	off     map[othello.Mode]bool
}

var _ engines.Engine = (*modeEngine)(nil)

// Name names the engines in use.
func (m *modeEngine) Name() string {
	if m.std != nil {
		return m.builtin.Name() + "; std: " + m.std.Name()
	}
	return m.builtin.Name()
}

// Supports is false for modes the settings turn off.
func (m *modeEngine) Supports(mode othello.Mode) bool {
	if m.off[mode] {
		return false
	}
	if mode == othello.Std && m.std != nil {
		return m.std.Supports(mode)
	}
	return m.builtin.Supports(mode)
}

// Move asks the engine of the request's mode.
func (m *modeEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	mode := req.Position.Mode
	if m.off[mode] {
		return engines.Result{}, fmt.Errorf("mode %s is off in the settings", mode)
	}
	if mode == othello.Std && m.std != nil {
		return m.std.Move(ctx, req)
	}
	return m.builtin.Move(ctx, req)
}

// StartFor starts the per-leg Egaroucid ahead of a std match's first move
// (the bot calls it when it accepts the match); the built-in engine needs
// no start.
func (m *modeEngine) StartFor(mode othello.Mode) error {
	if mode != othello.Std || m.std == nil {
		return nil
	}
	if st, ok := m.std.(bot.Starter); ok {
		return st.Start()
	}
	return nil
}

// Close closes the per-leg Egaroucid, not the shared built-in engine.
func (m *modeEngine) Close() error {
	if m.std != nil {
		return m.std.Close()
	}
	return nil
}

// offModes returns the modes the settings turn off.
func offModes(s Settings) map[othello.Mode]bool {
	off := map[othello.Mode]bool{}
	for name, e := range s.Engines {
		if e != EngineOff {
			continue
		}
		if m, err := othello.ParseMode(name); err == nil {
			off[m] = true
		}
	}
	return off
}

// stdEgaroucid returns the maker of the per-leg Egaroucid for std, sized
// to the device (engines/sizing): each leg gets half the cores (at most
// the settings' threads) and the largest table that keeps the Egaroucid
// of every leg of every match the settings allow at once inside the
// memory bound. When even its smallest table does not fit (a 512 MiB Zero
// 2 W; a 1 GB Pi with two matches at once) it returns nil and logs why:
// std is then played by the built-in engine and the device keeps working.
func stdEgaroucid(path string, s Settings, m sizing.Machine, log *slog.Logger) func() (engines.Engine, error) {
	legs := 2 * max(1, s.MaxMatches)
	p := sizing.Egaroucid(m, legs)
	if s.Threads > 0 {
		p.Threads = min(p.Threads, s.Threads)
	}
	args := []any{"processes", legs, "rss_mib_estimate", p.RSS >> 20, "share_mib", p.Share >> 20,
		"memory_mib", m.Memory >> 20, "hash_level", p.Table, "threads", p.Threads}
	if !p.Fits {
		log.Warn("Egaroucid does not fit this device's memory for every std leg at once; std is played by the built-in engine "+
			"(fewer matches at once in the settings may let it fit)", args...)
		return nil
	}
	log.Info("Egaroucid sized to the device", args...)
	return func() (engines.Engine, error) {
		return egaroucid.New(egaroucid.Options{Path: path, Threads: p.Threads, Hash: p.Table, MemoryShare: p.Share, Logger: log})
	}
}
