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

// Pool owns Egaroucid processes for std (the appliance's): at most slots
// of them (the caller sizes them: the most that fit the device's memory
// bound in whole matches, sizing.Pairs), leased two at a time, one per leg, to a std
// match when it is accepted (or at its first std move), and kept running
// between matches so that the next match does not wait for their
// start-up. A std match that comes while every slot is leased plays both
// its legs with the built-in engine: the two legs of a match always play
// the same kind of engine, and a match keeps its kind to its end. The
// build is checked up front, once the bot is online (Probe): one process first,
// its memory read; one that takes more than its share (a stock Egaroucid)
// is refused: every process is stopped and the built-in engine plays std
// from then on. Safe for concurrent use.
type Pool struct {
	newEngine func() (Instance, error)
	slots     int
	log       *slog.Logger

	mu     sync.Mutex
	all    map[Instance]bool // engines made and not closed: idle and leased (at most slots)
	idle   []Instance        // running (or restartable), leased to no match
	leased int               // engines in leases
	// builtins counts the leases not yet freed that play std with the
	// built-in engine for lack of a free pair (describe).
	builtins int
	byMatch  map[int64]*Lease // the leases of the matches with an engine not yet closed
	refused  error            // why Egaroucid is no longer used
	closed   bool
	// probing: the first process is being checked (probe); the processes
	// of leases made meanwhile start once it has passed (pending).
	probing bool
	pending []Instance
	cancel  context.CancelFunc // ends the probe
	probes  sync.WaitGroup
}

// Lease is what one std match plays with: two Egaroucid engines (legs 0 and
// 1; one for a human match), or none (the built-in engine). It is the
// match's from its first engine's making (Open) to its last engine's
// close (Release): the bot makes a failed engine's replacement before it
// closes the failed one, so the match keeps its lease, and its kind of
// engine, to its end.
type Lease struct {
	match   int64
	human   bool       // one leg: one Egaroucid
	refs    int        // the match's engines not yet closed
	taken   bool       // engines were leased (take)
	engines []Instance // nil: the built-in engine (no slot was free, or not yet taken)
	freed   bool
	busy    bool // built-in because every pair was leased (counted in builtins)
}

// NewPool returns a pool of at most slots Egaroucid instances made by
// newEngine (Egaroucid is refused for good when one takes more than its
// memory share: ErrOverShare), logging to log. Close it when done.
func NewPool(slots int, newEngine func() (Instance, error), log *slog.Logger) *Pool {
	return &Pool{slots: slots, newEngine: newEngine, log: log, byMatch: map[int64]*Lease{}, all: map[Instance]bool{}}
}

// Slots returns how many Egaroucid processes the pool runs at most.
func (p *Pool) Slots() int { return p.slots }

// Open returns match's lease, new or the one its earlier engine holds,
// for one more engine of the match (release lets go of it).
func (p *Pool) Open(match int64, human bool) *Lease {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byMatch[match]
	if l == nil {
		l = &Lease{match: match, human: human}
		p.byMatch[match] = l
	}
	l.refs++
	return l
}

// Take leases the match's engines, once (a freed lease takes nothing): two
// Egaroucid engines (warm ones first) when two slots are free, one of them
// given back at once for a human match, else the built-in engine; and logs
// what the match plays std with. The Egaroucid processes are started (not
// waited for; while the first process is being checked, once it has
// passed).
func (p *Pool) Take(l *Lease) {
	p.mu.Lock()
	if l.taken || l.freed {
		p.mu.Unlock()
		return
	}
	l.taken = true
	if p.refused == nil && !p.closed && p.slots-p.leased >= 2 {
		for len(l.engines) < 2 && len(p.idle) > 0 {
			l.engines = append(l.engines, p.idle[len(p.idle)-1])
			p.idle = p.idle[:len(p.idle)-1]
		}
		for len(l.engines) < 2 && len(p.all) < p.slots {
			e, err := p.newEngine()
			if err != nil {
				p.log.Warn("Egaroucid could not be made; std is played by the built-in engine for this match", "match", l.match, "err", err)
				break
			}
			p.all[e] = true
			l.engines = append(l.engines, e)
		}
		if len(l.engines) < 2 {
			p.idle = append(p.idle, l.engines...)
			l.engines = nil
		} else {
			p.leased += 2
		}
	}
	if l.engines == nil && p.refused == nil && !p.closed {
		l.busy = true
		p.builtins++
	}
	var start []Instance
	if p.probing {
		p.pending = append(p.pending, l.engines...) // started once the first one has passed its check
	} else {
		start = l.engines
	}
	if l.human && len(l.engines) == 2 {
		p.idle = append(p.idle, l.engines[1]) // started like the other, warm for the next match
		l.engines = l.engines[:1]
		p.leased--
	}
	switch {
	case l.engines != nil:
		p.log.Info("std match plays with Egaroucid", "match", l.match, "egaroucid_matches", p.leased/2, "egaroucid_max_matches", p.slots/2)
	case p.refused != nil:
		p.log.Info("std match plays with the built-in engine: Egaroucid was refused", "match", l.match)
	default:
		p.log.Info("std match plays both legs with the built-in engine: every Egaroucid slot is taken by another match",
			"match", l.match, "egaroucid_matches", p.leased/2, "egaroucid_max_matches", p.slots/2)
	}
	p.mu.Unlock()
	p.start(start)
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
	if p.refused != nil || p.closed || p.probing || len(p.all) >= p.slots {
		p.mu.Unlock()
		return
	}
	e, err := p.newEngine()
	if err != nil {
		p.mu.Unlock()
		p.log.Warn("Egaroucid could not be made", "err", err)
		return
	}
	p.all[e] = true
	p.idle = append(p.idle, e)
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

// Engine returns the Egaroucid engine of a leg of the lease, or nil when
// the built-in engine plays it (a built-in lease, or Egaroucid refused).
func (p *Pool) Engine(l *Lease, leg int) Instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(l.engines) == 0 || p.refused != nil || p.closed || l.freed {
		return nil
	}
	return l.engines[(leg&1)%len(l.engines)]
}

// BuiltinOnly reports whether the lease plays std with the built-in
// engine (no slot was free for its match when it was taken).
func (p *Pool) BuiltinOnly(l *Lease) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return l.taken && l.engines == nil
}

// Release lets go of one engine's hold on its match's lease: when the
// match's last engine is closed (its end), the lease is freed.
func (p *Pool) Release(l *Lease) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l.refs--; l.refs <= 0 {
		p.free(l)
	}
}

// free returns a lease's engines to the idle list, still running (p.mu
// held).
func (p *Pool) free(l *Lease) {
	if l.freed {
		return
	}
	l.freed = true
	if p.byMatch[l.match] == l {
		delete(p.byMatch, l.match)
	}
	if l.busy {
		p.builtins--
	}
	if l.engines == nil {
		return
	}
	p.leased -= len(l.engines)
	if p.refused != nil || p.closed {
		return // closed with the rest
	}
	p.idle = append(p.idle, l.engines...)
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
	list := p.takeAll()
	p.mu.Unlock()
	p.log.Error("Egaroucid refused: std is played by the built-in engine from now on", "err", err)
	closeAll(list, p.log)
}

// Describe names what plays std now, for FlipSight's environment.engine
// (bot.EngineFactory.Describe), after builtin, the built-in engine's
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
	list := p.takeAll()
	if p.cancel != nil {
		p.cancel()
	}
	p.mu.Unlock()
	closeAll(list, p.log)
	p.probes.Wait()
}

// takeAll empties the pool (p.mu held) and returns every engine, idle or
// leased, to be closed; the leases then play the built-in engine (engine
// returns nil once refused or closed).
func (p *Pool) takeAll() []Instance {
	list := make([]Instance, 0, len(p.all))
	for e := range p.all {
		list = append(list, e)
	}
	clear(p.all)
	p.idle = nil
	p.pending = nil
	return list
}

// Counts returns the engines made and not closed, and those leased.
func (p *Pool) Counts() (live, leased int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all), p.leased
}

func closeAll(list []Instance, log *slog.Logger) {
	for _, e := range list {
		if err := e.Close(); err != nil {
			log.Warn("closing Egaroucid", "err", err)
		}
	}
}
