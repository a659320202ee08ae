package appliance

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/othello"
)

// modeEngine plays each game mode with the engine the settings choose: the
// shared built-in engine, or (std only) the two Egaroucid engines that the
// pool leases to this match (one per leg). With Egaroucid the bot makes one
// modeEngine per match; without it, one for everything. Modes set to "off"
// are not supported, so the bot rejects them.
type modeEngine struct {
	builtin engines.Engine // shared; closed by the owner of the player, not here
	pool    *egaroucidPool // Egaroucid for std, or nil
	off     map[othello.Mode]bool

	mu     sync.Mutex
	lease  *lease // this match's std engines, once leased
	closed bool
}

var _ engines.Engine = (*modeEngine)(nil)

// Name names the engines in use: for std, Egaroucid, or the built-in
// engine and why.
func (m *modeEngine) Name() string {
	if m.pool == nil {
		return m.builtin.Name()
	}
	if err := m.pool.Refused(); err != nil {
		return m.builtin.Name() + "; std: built-in (Egaroucid refused: more memory than its share)"
	}
	m.mu.Lock()
	l := m.lease
	m.mu.Unlock()
	if l != nil && m.pool.builtinOnly(l) {
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
// engine in the time left, so that no move is lost for it.
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
	e := m.pool.engine(m.leaseFor(req), leg)
	if e == nil {
		return m.builtin.Move(ctx, req)
	}
	res, err := e.Move(ctx, req)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	if errors.Is(err, egaroucid.ErrOverShare) {
		m.pool.refuse(err)
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

// leaseFor returns this match's lease, leasing or claiming it on the first
// std move: the lease the pool keeps for the request's match (after a
// discard), or a new one. It is bound to the match when the request says
// which.
func (m *modeEngine) leaseFor(req engines.Request) *lease {
	m.mu.Lock()
	defer m.mu.Unlock()
	if req.Wire != nil && !m.closed {
		// The match's own lease wins over one leased ahead: a replacement
		// engine is started (StartFor) before it knows its match, and may
		// have leased a pair that came free meanwhile; the match must keep
		// its kind of engine to its end, so that pair goes back. Not after
		// Close: claiming reopens the lease, and nothing would close it again.
		if c := m.pool.claim(req.Wire.MatchID); c != nil && c != m.lease {
			if m.lease != nil {
				m.pool.detach(m.lease)
			}
			m.lease = c
		}
	}
	if m.lease == nil && m.closed {
		return &lease{} // a move racing the close: nothing leased that no one would give back
	}
	if m.lease == nil {
		m.lease = m.pool.acquire()
	}
	if req.Wire != nil {
		// round_no comes with human matches only (one leg).
		m.pool.bind(m.lease, req.Wire.MatchID, req.Wire.RoundNo != nil)
	}
	return m.lease
}

// StartFor leases the match's Egaroucid engines and starts them ahead of
// a std match's first move (the bot calls it when it accepts the match);
// the built-in engine needs no start.
func (m *modeEngine) StartFor(mode othello.Mode) error {
	if mode != othello.Std || m.pool == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lease == nil && !m.closed {
		m.lease = m.pool.acquire()
	}
	return nil
}

// Close gives the match's Egaroucid engines back to the pool (which keeps
// them running for the next match), not the shared built-in engine.
func (m *modeEngine) Close() error {
	m.mu.Lock()
	l := m.lease
	m.closed = true
	m.mu.Unlock()
	if l != nil {
		m.pool.detach(l)
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
