// Package route composes engines by game mode: an [Engine] plays each mode
// with the engine set for it and the other modes with a default engine,
// and turns some modes off (the appliance's per-mode settings: the
// built-in engine everywhere, Egaroucid for std, modes turned off).
//
// One file, route.go ([Engine]). It may import engines and
// engines/othello.
package route

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// Engine plays each mode with ByMode's engine for it, else with Default.
// Modes in Off are not supported (a bot rejects their matches) and their
// moves fail. Close closes the engines of ByMode, not Default, which may
// be shared (its owner closes it). Safe for concurrent use when its
// engines are; its fields must not change once it is in use.
type Engine struct {
	// Default plays the modes ByMode does not name.
	Default engines.Engine
	// ByMode names the engine of some modes.
	ByMode map[othello.Mode]engines.Engine
	// Off lists the modes turned off.
	Off map[othello.Mode]bool
}

var _ engines.Engine = (*Engine)(nil)

// engine returns the engine of mode.
func (r *Engine) engine(mode othello.Mode) engines.Engine {
	if e, ok := r.ByMode[mode]; ok {
		return e
	}
	return r.Default
}

// Name is Default's name, followed by "; <mode>: <name>" for each engine
// of ByMode, in mode order.
func (r *Engine) Name() string {
	name := r.Default.Name()
	modes := make([]othello.Mode, 0, len(r.ByMode))
	for m := range r.ByMode {
		modes = append(modes, m)
	}
	slices.Sort(modes)
	for _, m := range modes {
		name += "; " + m.String() + ": " + r.ByMode[m].Name()
	}
	return name
}

// Supports is false for the modes turned off, else what the mode's engine
// says.
func (r *Engine) Supports(mode othello.Mode) bool {
	if r.Off[mode] {
		return false
	}
	return r.engine(mode).Supports(mode)
}

// Move asks the engine of the position's mode.
func (r *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	mode := req.Position.Mode
	if r.Off[mode] {
		return engines.Result{}, fmt.Errorf("mode %s is off", mode)
	}
	return r.engine(mode).Move(ctx, req)
}

// StartFor starts the engine of mode ahead of its first move, when it
// has something to start (a StartFor or Start method, as the bot's
// ModeStarter and Starter).
func (r *Engine) StartFor(mode othello.Mode) error {
	if r.Off[mode] {
		return nil
	}
	switch e := r.engine(mode).(type) {
	case interface{ StartFor(othello.Mode) error }:
		return e.StartFor(mode)
	case interface{ Start() error }:
		return e.Start()
	}
	return nil
}

// Close closes the engines of ByMode (not Default).
func (r *Engine) Close() error {
	var errs []error
	for m, e := range r.ByMode {
		if err := e.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close the %s engine: %w", m, err))
		}
	}
	return errors.Join(errs...)
}
