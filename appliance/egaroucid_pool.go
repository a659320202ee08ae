package appliance

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/sizing"
)

// stdEngine is what the pool needs of an Egaroucid instance
// (*egaroucid.Engine; fakes in tests).
type stdEngine interface {
	engines.Engine
	// Start starts the process ahead of the first move.
	Start() error
	// Warm starts the process and waits until it is ready, its memory
	// checked (an error matching egaroucid.ErrOverShare refuses the build).
	Warm(ctx context.Context) error
}

// probeTimeout bounds the start-up check of the first Egaroucid (a stock
// build is refused within seconds; a start-up this long is a hang, which
// the moves handle).
const probeTimeout = 2 * time.Minute

// egaroucidPool owns the appliance's Egaroucid processes for std: at most
// slots of them, the most that fit the device's memory bound in whole
// matches (sizing.Pairs), leased two at a time, one per leg, to a std
// match when it is accepted (or at its first std move), and kept running
// between matches so that the next match does not wait for their
// start-up. A std match that comes while every slot is leased plays both
// its legs with the built-in engine: the two legs of a match always play
// the same kind of engine, and a match keeps its kind to its end. The
// build is checked up front, once the bot is online (probe): one process first,
// its memory read; one that takes more than its share (a stock Egaroucid)
// is refused: every process is stopped and the built-in engine plays std
// from then on. Safe for concurrent use.
type egaroucidPool struct {
	newEngine func() (stdEngine, error)
	slots     int
	log       *slog.Logger

	mu     sync.Mutex
	all    map[stdEngine]bool // engines made and not closed: idle and leased (at most slots)
	idle   []stdEngine        // running (or restartable), leased to no match
	leased int                // engines in leases
	// builtins counts the leases not yet freed that play std with the
	// built-in engine for lack of a free pair (describe).
	builtins int
	byMatch  map[int64]*lease // the leases of the matches with an engine not yet closed
	refused  error            // why Egaroucid is no longer used
	closed   bool
	// probing: the first process is being checked (probe); the processes
	// of leases made meanwhile start once it has passed (pending).
	probing bool
	pending []stdEngine
	cancel  context.CancelFunc // ends the probe
	probes  sync.WaitGroup
}

// lease is what one std match plays with: two Egaroucid engines (legs 0 and
// 1; one for a human match), or none (the built-in engine). It is the
// match's from its first engine's making (open) to its last engine's
// close (release): the bot makes a failed engine's replacement before it
// closes the failed one, so the match keeps its lease, and its kind of
// engine, to its end.
type lease struct {
	match   int64
	human   bool        // one leg: one Egaroucid
	refs    int         // the match's engines not yet closed
	taken   bool        // engines were leased (take)
	engines []stdEngine // nil: the built-in engine (no slot was free, or not yet taken)
	freed   bool
	busy    bool // built-in because every pair was leased (counted in builtins)
}

// newEgaroucidPool sizes Egaroucid for the device (engines/sizing): as
// many processes, in pairs, as fit the memory bound for the matches the
// settings allow at once, each leg half the cores (at most the settings'
// threads) and the largest table that keeps them all inside the bound.
// When not even one pair fits (a 512 MiB Zero 2 W) it logs why and
// returns nil: std is played by the built-in engine and the device keeps
// working.
func newEgaroucidPool(path string, s settings.Settings, m sizing.Machine, log *slog.Logger) *egaroucidPool {
	want := 2 * max(1, s.MaxMatches)
	slots, p := sizing.Pairs(m, want, sizing.Egaroucid)
	if s.Threads > 0 {
		p.Threads = min(p.Threads, s.Threads)
	}
	args := []any{"processes", slots, "matches_with_egaroucid", slots / 2, "max_matches", s.MaxMatches,
		"rss_mib_estimate", p.RSS >> 20, "share_mib", p.Share >> 20, "limit_mib", egaroucid.OverShareLimit(p.Share) >> 20,
		"memory_mib", m.Memory >> 20, "hash_level", p.Table, "threads", p.Threads}
	if slots == 0 {
		log.Warn("Egaroucid does not fit this device's memory even for one match; std is played by the built-in engine", args...)
		return nil
	}
	if slots < want {
		log.Info("Egaroucid sized to the device for fewer std matches than may run at once; "+
			"a std match beyond them plays both legs with the built-in engine", args...)
	} else {
		log.Info("Egaroucid sized to the device", args...)
	}
	return &egaroucidPool{
		slots: slots,
		log:   log,
		newEngine: func() (stdEngine, error) {
			return egaroucid.New(egaroucid.Options{Path: path, Threads: p.Threads, Hash: p.Table,
				MemoryShare: p.Share, RefuseOverShare: true, Logger: log,
				StderrLevel: slog.LevelDebug}) // its time limit, at every move
		},
		byMatch: map[int64]*lease{},
		all:     map[stdEngine]bool{},
	}
}

// open returns match's lease, new or the one its earlier engine holds,
// for one more engine of the match (release lets go of it).
func (p *egaroucidPool) open(match int64, human bool) *lease {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.byMatch[match]
	if l == nil {
		l = &lease{match: match, human: human}
		p.byMatch[match] = l
	}
	l.refs++
	return l
}

// take leases the match's engines, once (a freed lease takes nothing): two
// Egaroucid engines (warm ones first) when two slots are free, one of them
// given back at once for a human match, else the built-in engine; and logs
// what the match plays std with. The Egaroucid processes are started (not
// waited for; while the first process is being checked, once it has
// passed).
func (p *egaroucidPool) take(l *lease) {
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
	var start []stdEngine
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

func (p *egaroucidPool) start(list []stdEngine) {
	for _, e := range list {
		if err := e.Start(); err != nil {
			p.log.Warn("Egaroucid did not start ahead of the match; its first move starts it", "err", err)
		}
	}
}

// probe checks the build up front (the player calls it as the bot comes
// online): one Egaroucid is started and waited for, its memory checked,
// before any other is started (a stock build is killed while it writes its tables, and only
// one of them at a time). A refused build is reported then, not at the
// first std move. The process is kept, warm, for the first std match.
func (p *egaroucidPool) probe(ctx context.Context) {
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
		case errors.Is(err, egaroucid.ErrOverShare):
			p.refuse(err)
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

// engine returns the Egaroucid engine of a leg of the lease, or nil when
// the built-in engine plays it (a built-in lease, or Egaroucid refused).
func (p *egaroucidPool) engine(l *lease, leg int) stdEngine {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(l.engines) == 0 || p.refused != nil || p.closed || l.freed {
		return nil
	}
	return l.engines[(leg&1)%len(l.engines)]
}

// builtinOnly reports whether the lease plays std with the built-in
// engine (no slot was free for its match when it was taken).
func (p *egaroucidPool) builtinOnly(l *lease) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return l.taken && l.engines == nil
}

// release lets go of one engine's hold on its match's lease: when the
// match's last engine is closed (its end), the lease is freed.
func (p *egaroucidPool) release(l *lease) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if l.refs--; l.refs <= 0 {
		p.free(l)
	}
}

// free returns a lease's engines to the idle list, still running (p.mu
// held).
func (p *egaroucidPool) free(l *lease) {
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

// refuse stops using Egaroucid for good (a build over its memory share):
// logs err once and closes every Egaroucid process.
func (p *egaroucidPool) refuse(err error) {
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

// describe names what plays std now, for FlipSight's environment.engine
// (bot.EngineFactory.Describe), after builtin, the built-in engine's
// name: Egaroucid; the built-in engine for good once Egaroucid was
// refused; or the built-in engine while Egaroucid is busy, when some
// match not yet over plays std with it because every pair was leased.
func (p *egaroucidPool) describe(builtin string) string {
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
func (p *egaroucidPool) Refused() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Close stops every Egaroucid process (when the player stops).
func (p *egaroucidPool) Close() {
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
func (p *egaroucidPool) takeAll() []stdEngine {
	list := make([]stdEngine, 0, len(p.all))
	for e := range p.all {
		list = append(list, e)
	}
	clear(p.all)
	p.idle = nil
	p.pending = nil
	return list
}

// counts returns the engines made and not closed, and those leased.
func (p *egaroucidPool) counts() (live, leased int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.all), p.leased
}

func closeAll(list []stdEngine, log *slog.Logger) {
	for _, e := range list {
		if err := e.Close(); err != nil {
			log.Warn("closing Egaroucid", "err", err)
		}
	}
}
