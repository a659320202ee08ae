package main

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// counters are the soak's observations; all fields are updated atomically.
type counters struct {
	// The bot's move requests that reached the arena, those it refused and
	// those refused as illegal (arenatest.Front's reports).
	moves, moveErrors, illegal atomic.Int64
	// The faults injected.
	cuts, f503, lost, crashes, hangs, restarts atomic.Int64
	// The matches played and how they ended (the arena's results).
	matches, byDiscs, notByDiscs, myTimeouts, oppTimeouts atomic.Int64
	won, defeats, drawn                                   atomic.Int64
	byMode                                                sync.Map // othello.Mode → *atomic.Int64

	// The moves the bot sent by the source it logged (sourceCounter), and
	// the engine moves that ended without an answer at their deadline
	// (lateEngine).
	engineMoves, forcedMoves, fallbacks, otherSources atomic.Int64
	engineLate                                        atomic.Int64

	// arenaMu guards arenaMove: how long the arena took to handle each of
	// the bot's move requests (in this process: its share of the CPU), as a
	// histogram of fixed size, so that the harness's own memory stays flat.
	arenaMu   sync.Mutex
	arenaMove durationHist
}

// faults returns the number of faults injected.
func (c *counters) faults() int64 {
	return c.cuts.Load() + c.f503.Load() + c.lost.Load() + c.crashes.Load() + c.hangs.Load() + c.restarts.Load()
}

// playedIn counts a match played in mode.
func (c *counters) playedIn(mode othello.Mode) {
	c.matches.Add(1)
	v, _ := c.byMode.LoadOrStore(mode, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// inMode returns the matches played in mode.
func (c *counters) inMode(mode othello.Mode) int64 {
	if v, ok := c.byMode.Load(mode); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// noteMove counts one of the bot's move requests as the front saw it, and
// reports whether the arena refused it.
func (c *counters) noteMove(m arenatest.MoveCall) (refused bool) {
	if !m.Reached {
		return false // answered, dropped or held by the front: a fault's
	}
	c.moves.Add(1)
	c.noteArenaMove(m.Took)
	if m.Status == 200 {
		return false
	}
	c.moveErrors.Add(1)
	if m.Code == flipsight.CodeIllegalMove {
		c.illegal.Add(1)
	}
	return true
}

// noteArenaMove counts one move request's handling time.
func (c *counters) noteArenaMove(d time.Duration) {
	c.arenaMu.Lock()
	defer c.arenaMu.Unlock()
	c.arenaMove.add(d)
}

// arenaMovePercentiles returns the median, the 99th percentile and the
// largest of the arena's move handling times.
func (c *counters) arenaMovePercentiles() (p50, p99, top time.Duration, n int) {
	c.arenaMu.Lock()
	defer c.arenaMu.Unlock()
	h := &c.arenaMove
	return h.quantile(0.5), h.quantile(0.99), h.max, int(h.n)
}

// sourced returns the moves the bot logged with a source.
func (c *counters) sourced() int64 {
	return c.engineMoves.Load() + c.forcedMoves.Load() + c.fallbacks.Load() + c.otherSources.Load()
}

// durationHist counts durations in buckets 2 % wide from 1 µs up (the
// last bucket holds everything from about 5 h): a quantile is read to
// within 2 %, in constant memory.
type durationHist struct {
	counts [histBuckets]int64
	n      int64
	max    time.Duration
}

const (
	histBuckets = 1200
	histStep    = 1.02
)

func (h *durationHist) add(d time.Duration) {
	h.n++
	h.max = max(h.max, d)
	i := 0
	if us := float64(d) / float64(time.Microsecond); us > 1 {
		i = min(histBuckets-1, int(math.Log(us)/math.Log(histStep))+1)
	}
	h.counts[i]++
}

// quantile returns the upper bound of the bucket that holds the q-quantile
// (at most the largest duration seen).
func (h *durationHist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(float64(h.n-1)*q) + 1
	for i, c := range h.counts {
		if rank -= c; rank <= 0 && i < histBuckets-1 {
			return min(h.max, time.Duration(math.Pow(histStep, float64(i))*float64(time.Microsecond)))
		}
	}
	return h.max
}

// sourceKey is the attribute of the bot's record of each move it sent
// that says how the move was found: engine, forced or fallback (bot/leg.go;
// bot's TestEngineFaultsFallBack checks it on a fallback).
const sourceKey = "source"

// sourceCounter is a slog.Handler in front of the soak's log handler that
// counts the moves the bot sent by their structured source attribute, so
// that no figure hangs on a message's wording. It enables every level for
// itself (a move logged at any level is counted) and passes on to next the
// records next enables.
type sourceCounter struct {
	next    slog.Handler
	c       *counters
	grouped bool // under a group: a "source" there is not the bot's
}

// Enabled reports true: every record is looked at.
func (h sourceCounter) Enabled(context.Context, slog.Level) bool { return true }

// Handle counts r's source, if it has one, and passes r on.
func (h sourceCounter) Handle(ctx context.Context, r slog.Record) error {
	if !h.grouped {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key != sourceKey {
				return true
			}
			switch a.Value.String() {
			case "engine":
				h.c.engineMoves.Add(1)
			case "forced":
				h.c.forcedMoves.Add(1)
			case "fallback":
				h.c.fallbacks.Add(1)
			default:
				h.c.otherSources.Add(1)
			}
			return false
		})
	}
	if !h.next.Enabled(ctx, r.Level) {
		return nil
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns the counter over next with attrs.
func (h sourceCounter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sourceCounter{next: h.next.WithAttrs(attrs), c: h.c, grouped: h.grouped}
}

// WithGroup returns the counter over next in group name.
func (h sourceCounter) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return sourceCounter{next: h.next.WithGroup(name), c: h.c, grouped: true}
}

// lateEngine counts the moves its engine ended with an error once their
// context's deadline had passed: no answer within the budget (the
// jsonline adapter then kills the process). A move dropped because its leg
// moved on ends before the deadline and is not counted.
type lateEngine struct {
	engines.Engine
	late *atomic.Int64
}

// Start starts the engine's process ahead of its first move, when it has
// one to start: a session starts an engines.Starter in the background when a match
// is accepted and after a failure, and a wrapper that hid it would make
// every move pay the process's start-up from its budget.
func (e lateEngine) Start() error {
	if s, ok := e.Engine.(engines.Starter); ok {
		return s.Start()
	}
	return nil
}

// Move asks the engine and counts a late failure.
func (e lateEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	res, err := e.Engine.Move(ctx, req)
	if err != nil {
		if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
			e.late.Add(1)
		}
	}
	return res, err
}
