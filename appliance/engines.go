package appliance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/othello"
)

// modeEngine plays each game mode with the engine the settings choose: the
// shared built-in engine, or (std only) the two Egaroucid engines that the
// pool leases to its match (one per leg). With Egaroucid the bot makes one
// modeEngine per match (bot.EngineFactory.NewMatch), which knows its match
// from the start; without it, one for everything. Modes set to "off" are
// not supported, so the bot rejects them.
type modeEngine struct {
	builtin engines.Engine  // shared; closed by the owner of the player, not here
	pool    *egaroucid.Pool // Egaroucid for std, or nil
	off     map[othello.Mode]bool
	lease   *egaroucid.Lease // the match's std engines (with pool), shared by the match's engines

	mu     sync.Mutex
	closed bool
}

var _ engines.Engine = (*modeEngine)(nil)

// newMatchEngine makes the engine of match m: std with the pool's lease
// for m (the one the match's earlier engine, discarded after a failure,
// held: a match keeps its kind of engine to its end).
func newMatchEngine(builtin engines.Engine, pool *egaroucid.Pool, off map[othello.Mode]bool, m bot.MatchInfo) *modeEngine {
	return &modeEngine{builtin: builtin, pool: pool, off: off, lease: pool.Open(m.ID, m.Human)}
}

// Name names the engines in use: for std, Egaroucid, or the built-in
// engine and why.
func (m *modeEngine) Name() string {
	if m.pool == nil {
		return m.builtin.Name()
	}
	if err := m.pool.Refused(); err != nil {
		return m.builtin.Name() + "; std: built-in (Egaroucid refused: more memory than its share)"
	}
	if m.pool.BuiltinOnly(m.lease) {
		return m.builtin.Name() + "; std: built-in (every Egaroucid slot taken)"
	}
	return m.builtin.Name() + "; std: Egaroucid"
}

// Supports is false for modes the settings turn off.
func (m *modeEngine) Supports(mode othello.Mode) bool {
	if m.off[mode] {
		return false
	}
	return m.builtin.Supports(mode)
}

// Move asks the engine of the request's mode. A std move whose Egaroucid
// was refused for its memory (then or meanwhile) is played by the built-in
// engine in the time left, so that no move is lost for it. The leg, and
// only the leg, comes from the request's wire form (the match is m's).
func (m *modeEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	mode := req.Position.Mode
	if m.off[mode] {
		return engines.Result{}, fmt.Errorf("mode %s is off in the settings", mode)
	}
	if mode != othello.Std || m.pool == nil {
		return m.builtin.Move(ctx, req)
	}
	start := time.Now()
	leg := 0
	if req.Wire != nil {
		leg = req.Wire.Leg
	}
	m.take()
	e := m.pool.Engine(m.lease, leg)
	if e == nil {
		return m.builtin.Move(ctx, req)
	}
	res, err := e.Move(ctx, req)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	if errors.Is(err, egaroucid.ErrOverShare) {
		m.pool.Refuse(err)
	}
	if m.pool.Refused() == nil {
		return res, err
	}
	spent := time.Since(start)
	req.Budget -= spent
	req.Remaining -= spent
	if req.Budget <= 0 {
		return res, err
	}
	return m.builtin.Move(ctx, req)
}

// take leases the match's Egaroucid engines, once per match, unless m is
// closed (a move racing the close: nothing leased that no one would give
// back).
func (m *modeEngine) take() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.pool.Take(m.lease)
	}
}

// StartFor leases the match's Egaroucid engines and starts them ahead of
// a std match's first move (the bot calls it when it accepts the match);
// the built-in engine needs no start.
func (m *modeEngine) StartFor(mode othello.Mode) error {
	if mode != othello.Std || m.pool == nil {
		return nil
	}
	m.take()
	return nil
}

// Close lets go of the match's lease: the pool gives its Egaroucid engines
// back (keeping them running for the next match) when the match's last
// engine is closed, its end. The shared built-in engine is not closed.
func (m *modeEngine) Close() error {
	m.mu.Lock()
	done := m.closed
	m.closed = true
	m.mu.Unlock()
	if m.pool != nil && !done {
		m.pool.Release(m.lease)
	}
	return nil
}

// offModes returns the modes the settings turn off.
func offModes(s settings.Settings) map[othello.Mode]bool {
	off := map[othello.Mode]bool{}
	for name, e := range s.Engines {
		if e != settings.EngineOff {
			continue
		}
		if m, err := othello.ParseMode(name); err == nil {
			off[m] = true
		}
	}
	return off
}
