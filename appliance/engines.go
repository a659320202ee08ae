package appliance

import (
	"context"
	"fmt"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
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
