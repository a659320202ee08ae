// Package route composes engine providers by game mode: a [Provider]
// opens each match's session with the provider set for the match's mode,
// or with a default provider, and turns some modes off (the appliance's
// per-mode settings: the built-in engine everywhere, Egaroucid for std,
// modes turned off).
//
// One file, route.go ([Provider]). It may import engines and
// engines/othello.
package route

import (
	"context"
	"fmt"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// Provider opens each match with ByMode's provider for its mode, else
// with Default. A match in a mode of Off gets a session whose moves fail
// (a bot rejects such matches; one it finds running plays fallbacks).
// Safe for concurrent use when its providers are; its fields must not
// change once it is in use.
type Provider struct {
	// Default opens the matches of the modes ByMode does not name.
	Default engines.Provider
	// ByMode names the provider of some modes.
	ByMode map[othello.Mode]engines.Provider
	// Off lists the modes turned off.
	Off map[othello.Mode]bool
}

var _ engines.Provider = (*Provider)(nil)

// Open implements engines.Provider.
func (r *Provider) Open(ctx context.Context, m engines.MatchInfo) (engines.Session, error) {
	if r.Off[m.Mode] {
		return offSession{m.Mode}, nil
	}
	if p, ok := r.ByMode[m.Mode]; ok {
		return p.Open(ctx, m)
	}
	return r.Default.Open(ctx, m)
}

// Modes returns the modes not turned off, in mode order.
func (r *Provider) Modes() []othello.Mode {
	var modes []othello.Mode
	for _, m := range othello.AllModes() {
		if !r.Off[m] {
			modes = append(modes, m)
		}
	}
	return modes
}

// offSession is the session of a match in a mode turned off.
type offSession struct{ mode othello.Mode }

func (s offSession) Move(context.Context, int, engines.Request) (engines.Result, error) {
	return engines.Result{}, fmt.Errorf("mode %s is off", s.mode)
}

func (s offSession) Ponder(context.Context, int, engines.PonderRequest) error {
	return engines.ErrNoPonder
}

func (offSession) Replace(int)  {}
func (offSession) Restart(int)  {}
func (offSession) Close() error { return nil }
