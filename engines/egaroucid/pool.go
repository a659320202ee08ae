package egaroucid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// Instance is what a Pool needs of an Egaroucid instance (*Engine; fakes
// in tests).
type Instance interface {
	engines.Engine
	// Start starts the process ahead of the first move.
	Start() error
	// Warm starts the process and waits until it is ready, its memory
	// checked (an error matching ErrOverShare refuses the build).
	Warm(ctx context.Context) error
}

// probeTimeout bounds the start-up check of the first Egaroucid (a stock
// build is refused within seconds; a start-up this long is a hang, which
// the moves handle).
const probeTimeout = 2 * time.Minute

// Pool is the engines.Provider of std matches played with Egaroucid (the
// appliance's): it keeps at most slots Egaroucid processes (the caller
// sizes them: the most that fit the device's memory bound in whole
// matches, sizing.Pairs) in an engines.Pool, warm between matches so that
// the next match does not wait for their start-up. Open gives a std match
// two of them, one per leg, for the match's session, which gives them back
// at its Close. A std match that comes while every slot is taken plays
// both its legs with fallback (the built-in engine): the two legs of a
// match always play the same kind of engine, and a match keeps its kind
// to its end (a failed leg keeps its Egaroucid: the adapter restarts a
// process that died or overran at its next move). The build is checked
// up front, once the bot is online (Probe): one process first, its memory
// read; one that takes more than its share (a stock Egaroucid) is
// refused: every process is stopped and fallback plays std from then on.
// Safe for concurrent use.
type Pool struct {
	newEngine func() (Instance, error)
	warm      *engines.Pool
	fallback  engines.Provider
	slots     int
	log       *slog.Logger

	mu     sync.Mutex
	leased int // engines in sessions not closed
	// builtins counts the sessions not closed that play std with fallback
	// for lack of a free pair (Describe).
	builtins int
	refused  error // why Egaroucid is no longer used
	closed   bool
	// probing: the first process is being checked (probe); the processes
	// of sessions opened meanwhile start once it has passed (pending).
	probing bool
	pending []Instance
	cancel  context.CancelFunc // ends the probe
	probes  sync.WaitGroup
}

var _ engines.Provider = (*Pool)(nil)

// NewPool returns a pool of at most slots Egaroucid instances made by
// newEngine (Egaroucid is refused for good when one takes more than its
// memory share: ErrOverShare); fallback opens what plays std instead,
// logging to log. Close it when done.
func NewPool(slots int, newEngine func() (Instance, error), fallback engines.Provider, log *slog.Logger) *Pool {
	warm := engines.NewPool(engines.PoolConfig{Max: slots, Logger: log,
		New: func() (engines.Engine, error) { return newEngine() }})
	return &Pool{newEngine: newEngine, warm: warm, fallback: fallback, slots: slots, log: log}
}

// Slots returns how many Egaroucid processes the pool runs at most.
func (p *Pool) Slots() int { return p.slots }

// Open implements engines.Provider: the session of a std match, with two
// Egaroucid engines (warm ones first) when two slots are free, one of them
// given back at once for a human match, else with fallback's session; it
// logs what the match plays std with. The Egaroucid processes are started
// in the background (while the first process is being checked, once it
// has passed).
func (p *Pool) Open(ctx context.Context, m engines.MatchInfo) (engines.Session, error) {
	fb, err := p.fallback.Open(ctx, m)
	if err != nil {
		return nil, err
	}
	s := &session{p: p, m: m, fb: fb}
	p.mu.Lock()
	if p.refused == nil && !p.closed {
		list, err := p.warm.Take(2)
		switch {
		case err == nil:
			for _, e := range list {
				s.engines = append(s.engines, e.(Instance))
			}
			p.leased += 2
		case !errors.Is(err, engines.ErrPoolFull):
			p.log.Warn("Egaroucid could not be made; std is played by the built-in engine for this match", "match", m.ID, "err", err)
		}
	}
	if s.engines == nil && p.refused == nil && !p.closed {
		s.busy = true
		p.builtins++
	}
	var start []Instance
	if p.probing {
		p.pending = append(p.pending, s.engines...) // started once the first one has passed its check
	} else {
		start = s.engines
	}
	if m.Human && len(s.engines) == 2 {
		p.warm.Put(s.engines[1]) // started like the other, warm for the next match
		s.engines = s.engines[:1]
		p.leased--
	}
	switch {
	case s.engines != nil:
		p.log.Info("std match plays with Egaroucid", "match", m.ID, "egaroucid_matches", p.leased/2, "egaroucid_max_matches", p.slots/2)
	case p.refused != nil:
		p.log.Info("std match plays with the built-in engine: Egaroucid was refused", "match", m.ID)
	default:
		p.log.Info("std match plays both legs with the built-in engine: every Egaroucid slot is taken by another match",
			"match", m.ID, "egaroucid_matches", p.leased/2, "egaroucid_max_matches", p.slots/2)
	}
	p.mu.Unlock()
	s.asks.Add(1)
	go func() {
		defer s.asks.Done()
		p.start(start)
	}()
	return s, nil
}

func (p *Pool) start(list []Instance) {
	for _, e := range list {
		if err := e.Start(); err != nil {
			p.log.Warn("Egaroucid did not start ahead of the match; its first move starts it", "err", err)
		}
	}
}

// Probe checks the build up front (the appliance calls it as the bot comes
// online): one Egaroucid is started and waited for, its memory checked,
// before any other is started (a stock build is killed while it writes its tables, and only
// one of them at a time). A refused build is reported then, not at the
// first std move. The process is kept, warm, for the first std match.
func (p *Pool) Probe(ctx context.Context) {
	p.mu.Lock()
	if live, _ := p.warm.Counts(); p.refused != nil || p.closed || p.probing || live >= p.slots {
		p.mu.Unlock()
		return
	}
	list, err := p.warm.Take(1)
	if err != nil {
		p.mu.Unlock()
		p.log.Warn("Egaroucid could not be made", "err", err)
		return
	}
	e := list[0].(Instance)
	p.warm.Put(e) // warm for the first std match, which may take it while it is checked
	p.probing = true
	ctx, p.cancel = context.WithTimeout(ctx, probeTimeout)
	cancel := p.cancel
	p.probes.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.probes.Done()
		defer cancel()
		began := time.Now()
		err := e.Warm(ctx)
		switch {
		case errors.Is(err, ErrOverShare):
			p.Refuse(err)
		case err != nil:
			p.log.Warn("the first Egaroucid did not get ready; starting the others anyway", "err", err)
		default:
			p.log.Info("Egaroucid checked: started, answered, inside its memory share",
				"startup_ms", time.Since(began).Milliseconds())
		}
		p.mu.Lock()
		p.probing = false
		list := p.pending
		p.pending = nil
		if p.refused != nil || p.closed {
			list = nil
		}
		p.mu.Unlock()
		p.start(list)
	}()
}

// Check probes the build before the bot goes online: one Egaroucid made
// as the pool makes them, started, warmed (its memory checked) and asked
// for a move in the std start position, all within timeout, then closed.
// A build refused for its memory (ErrOverShare) is refused for the pool
// (the built-in engine plays std) and is no failure: Check returns nil.
// Any other failure (the program missing, crashing, silent, answering an
// illegal move) is returned, and the caller keeps the bot offline.
func (p *Pool) Check(ctx context.Context, timeout time.Duration) error {
	if p.Refused() != nil {
		return nil
	}
	e, err := p.newEngine()
	if err != nil {
		return err
	}
	defer func() { _ = e.Close() }()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := e.Warm(ctx); err != nil {
		if errors.Is(err, ErrOverShare) {
			p.Refuse(err)
			return nil
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("no answer in %v: %w", timeout, err)
		}
		return err
	}
	pos := othello.New(othello.Std)
	deadline, _ := ctx.Deadline()
	res, err := e.Move(ctx, engines.Request{Position: pos, Remaining: time.Minute, At: time.Now(),
		Budget: min(500*time.Millisecond, time.Until(deadline))})
	if err != nil {
		if errors.Is(err, ErrOverShare) {
			p.Refuse(err)
			return nil
		}
		return err
	}
	if _, err := pos.Play(res.Move); err != nil {
		return fmt.Errorf("an illegal answer in the std start position: %w", err)
	}
	return nil
}

// release gives back the engines of a closed session, still running.
func (p *Pool) release(s *session) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.busy {
		p.builtins--
	}
	p.leased -= len(s.engines)
	if p.refused != nil || p.closed {
		return // closed with the rest
	}
	for _, e := range s.engines {
		p.warm.Put(e)
	}
}

// Refuse stops using Egaroucid for good (a build over its memory share):
// logs err once and closes every Egaroucid process.
func (p *Pool) Refuse(err error) {
	p.mu.Lock()
	if p.refused != nil {
		p.mu.Unlock()
		return
	}
	p.refused = err
	p.pending = nil
	p.mu.Unlock()
	p.log.Error("Egaroucid refused: std is played by the built-in engine from now on", "err", err)
	_ = p.warm.Close()
}

// Describe names what plays std now, for FlipSight's environment.engine
// (bot.Engines.Describe), after builtin, the built-in engine's
// name: Egaroucid; the built-in engine for good once Egaroucid was
// refused; or the built-in engine while Egaroucid is busy, when some
// match not yet over plays std with it because every pair was leased.
func (p *Pool) Describe(builtin string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.refused != nil:
		return builtin + "; std: built-in (Egaroucid refused: more memory than its share)"
	case p.builtins > 0:
		return builtin + "; std: built-in while Egaroucid is busy"
	}
	return builtin + "; std: Egaroucid"
}

// Refused returns why Egaroucid was refused, or nil.
func (p *Pool) Refused() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Close stops every Egaroucid process (when the caller stops playing).
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	p.pending = nil
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Unlock()
	_ = p.warm.Close()
	p.probes.Wait()
}

// Counts returns the engines made and not closed, and those in sessions.
func (p *Pool) Counts() (live, leased int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	live, _ = p.warm.Counts()
	return live, p.leased
}

// isClosed reports whether Close was called.
func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}
