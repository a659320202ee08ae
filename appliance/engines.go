package appliance

import (
	"context"
	"errors"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/route"
)

// newMatchEngine makes the engine of match m (bot.EngineFactory.NewMatch):
// std with the Egaroucid engines pool leases to the match, the other modes
// with the shared built-in engine, the modes off in the settings not at
// all.
func newMatchEngine(builtin engines.Engine, pool *egaroucid.Pool, off map[othello.Mode]bool, m bot.MatchInfo) *route.Engine {
	return &route.Engine{Default: builtin, Off: off,
		ByMode: map[othello.Mode]engines.Engine{othello.Std: newEgaroucidMatch(builtin, pool, m)}}
}

// egaroucidMatch plays a match's std legs with the two Egaroucid engines
// the pool leases to the match (one per leg), or with the built-in engine
// when every Egaroucid slot was taken, or once Egaroucid is refused. The
// pool keeps the lease for the match (its engines made after a failure
// share it) until the match's last one is closed, its end.
type egaroucidMatch struct {
	builtin engines.Engine // shared; closed by the owner of the player, not here
	pool    *egaroucid.Pool
	lease   *egaroucid.Lease

	mu     sync.Mutex
	closed bool
}

var _ engines.Engine = (*egaroucidMatch)(nil)

func newEgaroucidMatch(builtin engines.Engine, pool *egaroucid.Pool, m bot.MatchInfo) *egaroucidMatch {
	return &egaroucidMatch{builtin: builtin, pool: pool, lease: pool.Open(m.ID, m.Human)}
}

// Name says what plays std: Egaroucid, or the built-in engine and why.
func (e *egaroucidMatch) Name() string {
	if err := e.pool.Refused(); err != nil {
		return "built-in (Egaroucid refused: more memory than its share)"
	}
	if e.pool.BuiltinOnly(e.lease) {
		return "built-in (every Egaroucid slot taken)"
	}
	return "Egaroucid"
}

// Supports is std's support by the built-in engine (std only).
func (e *egaroucidMatch) Supports(mode othello.Mode) bool {
	return mode == othello.Std && e.builtin.Supports(mode)
}

// Move asks the leg's Egaroucid. A move whose Egaroucid was refused for
// its memory (then or meanwhile) is played by the built-in engine in the
// time left, so that no move is lost for it. The match is e's; the leg is
// the request's.
func (e *egaroucidMatch) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	e.take()
	eg := e.pool.Engine(e.lease, req.Leg)
	if eg == nil {
		return e.builtin.Move(ctx, req)
	}
	res, err := eg.Move(ctx, req)
	if err == nil || ctx.Err() != nil {
		return res, err
	}
	if errors.Is(err, egaroucid.ErrOverShare) {
		e.pool.Refuse(err)
	}
	if e.pool.Refused() == nil {
		return res, err
	}
	spent := time.Since(start)
	req.Budget -= spent
	req.Remaining -= spent
	if req.Budget <= 0 {
		return res, err
	}
	return e.builtin.Move(ctx, req)
}

// take leases the match's Egaroucid engines, once per match, unless e is
// closed (a move racing the close: nothing leased that no one would give
// back).
func (e *egaroucidMatch) take() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.pool.Take(e.lease)
	}
}

// Start leases the match's Egaroucid engines and starts them ahead of the
// match's first std move (the bot calls it, through route.Engine.StartFor,
// when it accepts a std match).
func (e *egaroucidMatch) Start() error {
	e.take()
	return nil
}

// Close lets go of the match's lease: the pool gives its Egaroucid engines
// back (keeping them running for the next match) when the match's last
// engine is closed, its end. The shared built-in engine is not closed.
func (e *egaroucidMatch) Close() error {
	e.mu.Lock()
	done := e.closed
	e.closed = true
	e.mu.Unlock()
	if !done {
		e.pool.Release(e.lease)
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
