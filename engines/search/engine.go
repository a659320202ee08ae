package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// Options configure an [Engine]. The zero value gives the defaults.
type Options struct {
	// Threads is the most threads one search uses (default
	// runtime.NumCPU()).
	Threads int
	// HashMB is the size of the transposition table in MiB (default 64).
	HashMB int
	// Pool, when set, is a core budget shared with other engines or
	// searches: every search takes its threads from it, so that searches
	// running at once never use more threads than the pool holds. Without
	// it the engine makes its own pool of Threads cores, shared by the
	// searches of this engine.
	Pool *Pool
	// Logger receives one debug line per search (default: discard).
	Logger *slog.Logger
	// Eval8 and Eval10 choose the evaluation of each mode (default: the
	// hand-made baselines of package eval).
	Eval8  func(othello.Mode) eval.Evaluator8
	Eval10 func(othello.Mode) eval.Evaluator10
	// ProbCut holds the Multi-ProbCut parameters of the midgame search
	// (default: per mode, the table `flipengine probcut` fitted for the
	// mode's kind of evaluation, the trained one for an *eval.Pattern and
	// the hand-made one otherwise; an empty ProbCut turns Multi-ProbCut
	// off). Refit them whenever the evaluation changes.
	ProbCut *ProbCut
}

// Engine is the built-in engine: iterative deepening PVS with a shared
// transposition table and Lazy SMP threads in the midgame, an exact solver
// near the end, in every mode. It implements [engines.Engine] and is safe for
// concurrent use: concurrent searches share the table and the core pool,
// and identical concurrent requests are searched once.
type Engine struct {
	threads int
	tt      *table
	pool    *Pool
	log     *slog.Logger
	ev8     [5]eval.Evaluator8
	ev10    [5]eval.Evaluator10
	mpc     [5]*probCutModel
	flights flights
	ponders ponders
	// onSearch, when set (tests), is called with the cores a move's
	// search took from the pool, before it starts.
	onSearch func(cores int)
}

var _ engines.Ponderer = (*Engine)(nil)

var _ engines.Engine = (*Engine)(nil)

// New returns an engine with the given options.
func New(opts Options) *Engine {
	if opts.Threads <= 0 {
		opts.Threads = runtime.NumCPU()
	}
	if opts.HashMB <= 0 {
		opts.HashMB = 64
	}
	if opts.Pool == nil {
		opts.Pool = NewPool(opts.Threads)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Eval8 == nil {
		opts.Eval8 = eval.Baseline8
	}
	if opts.Eval10 == nil {
		opts.Eval10 = eval.Baseline10
	}
	e := &Engine{threads: opts.Threads, tt: newTable(opts.HashMB), pool: opts.Pool, log: opts.Logger}
	var baseline, pattern *ProbCut
	for _, m := range othello.AllModes() {
		var ev any
		if m.Size() == 8 {
			e.ev8[m] = opts.Eval8(m)
			ev = e.ev8[m]
		} else {
			e.ev10[m] = opts.Eval10(m)
			ev = e.ev10[m]
		}
		pc := opts.ProbCut
		if pc == nil {
			if _, ok := ev.(*eval.Pattern); ok {
				if pattern == nil {
					pattern = patternProbCut()
					pattern.End = patternEndCut()
				}
				pc = pattern
			} else {
				if baseline == nil {
					baseline = baselineProbCut()
				}
				pc = baseline
			}
		}
		e.mpc[m] = pc.model(m)
	}
	return e
}

// Name implements [engines.Engine].
func (e *Engine) Name() string {
	if e.threads == 1 {
		return "flipbot search (1 thread)"
	}
	return fmt.Sprintf("flipbot search (%d threads)", e.threads)
}

// Supports implements [engines.Engine]: every mode.
func (e *Engine) Supports(mode othello.Mode) bool { return int(mode) < len(e.ev8) }

// Close implements [engines.Engine]. The table stays usable: Close only
// exists for the interface.
func (e *Engine) Close() error { return nil }

// ClearHash empties the transposition table (between unrelated positions,
// e.g. in benchmarks).
func (e *Engine) ClearHash() { e.tt.clear() }

// Limits bound a search made with [Engine.Search].
type Limits struct {
	// Time is the longest the search may take (0: no limit).
	Time time.Duration
	// Depth is the deepest midgame iteration (0: no limit).
	Depth int
	// Exact asks for an exact solve to the end of the game.
	Exact bool
	// EmptiesToWinner scores a finished game's empty squares for its
	// winner, the convention of the FFO test suites; by default they go to
	// nobody, as on FlipSight.
	EmptiesToWinner bool
}

// outcomeStats is a search's outcome with its cost.
type outcomeStats struct {
	outcome
	nodes   uint64
	elapsed time.Duration
}

// ErrNoMove is returned when a search ends before it has any move.
var ErrNoMove = errors.New("search ended before finding a move")

// Move implements [engines.Engine]: it allots think time from the request's
// clock, budget and the position, and searches.
func (e *Engine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	pos := req.Position
	legal := pos.Legal()
	if legal.IsZero() {
		return engines.Result{Move: othello.Pass, Elapsed: time.Since(start)}, nil
	}
	if legal.Count() == 1 {
		mv := legal.First()
		return engines.Result{Move: mv, PV: []int{mv}, Elapsed: time.Since(start)}, nil
	}
	e.settlePonder(pos)
	plan := planMove(pos, req.Remaining, req.Budget)
	ctx, cancel := context.WithTimeout(ctx, plan.hard)
	defer cancel()
	res, shared, err := e.flights.do(ctx, flightKey{pos: pos}, func() (outcomeStats, error) {
		return e.search(ctx, pos, plan)
	})
	if err != nil || !res.ok || !legal.Has(res.move) {
		// No usable answer (a shared search outlived our budget): play the
		// best move by a one-ply evaluation.
		mv := e.quickMove(pos)
		e.log.Debug("search fell back to a one-ply move", "err", err, "move", mv)
		return engines.Result{Move: mv, PV: []int{mv}, Elapsed: time.Since(start)}, nil
	}
	r := toResult(res)
	r.Elapsed = time.Since(start)
	e.log.Debug("search", "mode", pos.Mode, "move", othello.SquareName(r.Move, pos.Size()), "depth", r.Depth,
		"exact", r.Exact, "score", r.Score, "nodes", r.Nodes, "ms", r.Elapsed.Milliseconds(), "shared", shared)
	return r, nil
}

// Search searches pos within the limits, with the engine's threads. It
// returns othello.Pass when the side to move has no move.
func (e *Engine) Search(ctx context.Context, pos othello.Position, lim Limits) (engines.Result, error) {
	start := time.Now()
	if pos.Legal().IsZero() {
		return engines.Result{Move: othello.Pass, Elapsed: time.Since(start)}, nil
	}
	plan := searchPlan{soft: lim.Time, hard: lim.Time, maxDepth: lim.Depth, exact: lim.Exact, toWinner: lim.EmptiesToWinner}
	if lim.Time <= 0 {
		plan.soft, plan.hard = 1<<62, 0
	}
	res, err := e.search(ctx, pos, plan)
	if err != nil {
		return engines.Result{}, err
	}
	if !res.ok {
		return engines.Result{}, ErrNoMove
	}
	r := toResult(res)
	r.Elapsed = time.Since(start)
	return r, nil
}

var _ engines.QuickMover = (*Engine)(nil)

// QuickMove implements [engines.QuickMover]: a search of pos on one thread
// for at most think, exact when a solve fits in it. It neither waits for
// a core of the pool nor joins a search of the same position already
// running (a fallback must not wait behind the search that failed): its
// few milliseconds come on top of the pool's cores. Under a millisecond
// to think, or stopped before its first iteration, it plays the best move
// by a one-ply evaluation.
func (e *Engine) QuickMove(ctx context.Context, pos othello.Position, think time.Duration) (engines.Result, error) {
	start := time.Now()
	legal := pos.Legal()
	if legal.IsZero() {
		return engines.Result{Move: othello.Pass, Elapsed: time.Since(start)}, nil
	}
	if legal.Count() == 1 || think < time.Millisecond || ctx.Err() != nil {
		mv := legal.First()
		if legal.Count() > 1 {
			mv = e.quickMove(pos)
		}
		return engines.Result{Move: mv, PV: []int{mv}, Elapsed: time.Since(start)}, nil
	}
	j := &job{start: start, soft: think, hard: think}
	timer := time.AfterFunc(think, func() { j.stop.Store(true) })
	defer timer.Stop()
	stopWatch := context.AfterFunc(ctx, func() { j.stop.Store(true) })
	defer stopWatch()
	res := e.run(j, pos, searchPlan{soft: think, hard: think, trySolve: true}, 1)
	if !legal.Has(res.move) {
		mv := e.quickMove(pos)
		return engines.Result{Move: mv, PV: []int{mv}, Elapsed: time.Since(start)}, nil
	}
	r := toResult(res)
	r.Elapsed = time.Since(start)
	e.log.Debug("quick move", "mode", pos.Mode, "move", othello.SquareName(r.Move, pos.Size()), "depth", r.Depth,
		"exact", r.Exact, "score", r.Score, "nodes", r.Nodes, "ms", r.Elapsed.Milliseconds(), "think_ms", think.Milliseconds())
	return r, nil
}

func toResult(res outcomeStats) engines.Result {
	return engines.Result{
		Move:    res.move,
		Depth:   res.depth,
		Exact:   res.exact,
		Score:   float64(res.score) / eval.Disc,
		Nodes:   res.nodes,
		PV:      res.pv,
		Elapsed: res.elapsed,
	}
}

// quickMove returns the legal move with the best one-ply evaluation.
func (e *Engine) quickMove(pos othello.Position) int {
	legal := pos.LegalMoves()
	best, bestV := othello.Pass, -inf
	for _, mv := range legal {
		next, err := pos.Play(mv)
		if err != nil {
			continue
		}
		v := -e.staticScore(next)
		if v > bestV || best == othello.Pass {
			best, bestV = mv, v
		}
	}
	return best
}

// staticScore evaluates pos for its side to move.
func (e *Engine) staticScore(pos othello.Position) int {
	p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
	if pos.Size() == 10 {
		return e.ev10[pos.Mode].Score10(p, o)
	}
	pl, ol := placementsLeft(pos)
	return e.ev8[pos.Mode].Score8(p.Lo, o.Lo, pl, ol)
}

// placementsLeft returns the discs the side to move and its opponent may
// still place: reversi's cap, or capsFree.
func placementsLeft(pos othello.Position) (pl, ol int) {
	if pos.Mode != othello.Reversi {
		return capsFree, capsFree
	}
	return othello.ReversiCap - pos.Placed.Of(pos.Turn), othello.ReversiCap - pos.Placed.Of(pos.Turn.Opponent())
}

// modeSalt separates the table entries of the modes and scoring rules.
func modeSalt(m othello.Mode, toWinner bool) uint64 {
	s := (uint64(m) + 1) * 0x9E3779B97F4A7C15
	if toWinner {
		s ^= 0x5851F42D4C957F2D
	}
	return s
}

// search runs one search of pos under plan with threads from the pool.
func (e *Engine) search(ctx context.Context, pos othello.Position, plan searchPlan) (outcomeStats, error) {
	// Wait for a core at most a tenth of the think time (between 5 and
	// 100 ms); past that, search on one thread anyway.
	wait := max(5*time.Millisecond, min(100*time.Millisecond, plan.hard/10))
	if plan.hard <= 0 {
		wait = time.Second
	}
	got, err := e.pool.acquire(ctx, e.threads, wait)
	if err != nil {
		return outcomeStats{}, err
	}
	defer e.pool.release(got)
	if e.onSearch != nil {
		e.onSearch(got)
	}
	j := &job{start: time.Now(), soft: plan.soft, hard: plan.hard}
	if plan.hard > 0 {
		timer := time.AfterFunc(plan.hard, func() { j.stop.Store(true) })
		defer timer.Stop()
	}
	stopWatch := context.AfterFunc(ctx, func() { j.stop.Store(true) })
	defer stopWatch()
	return e.run(j, pos, plan, max(got, 1)), nil
}

// run searches pos under plan on n threads until the plan is done or j is
// stopped.
func (e *Engine) run(j *job, pos othello.Position, plan searchPlan, n int) outcomeStats {
	threads := make([]*thread, n)
	for i := range threads {
		threads[i] = &thread{tt: e.tt, ev8: e.ev8[pos.Mode], ev10: e.ev10[pos.Mode], salt: modeSalt(pos.Mode, plan.toWinner), mpc: e.mpc[pos.Mode],
			anti: pos.Mode == othello.Anti, toWinner: plan.toWinner, blocked: pos.Mode.Blocked(), id: i, job: j}
	}
	switch {
	case centreOpen(pos):
		// The opening placements of classic reversi flip nothing and
		// FlipSight never asks for them: play the best by evaluation.
		mv := e.quickMove(pos)
		j.publish(outcome{move: mv, depth: 1, pv: []int{mv}})
	case pos.Size() == 10:
		drive(j, threads, newRootSearch10(pos), plan)
	default:
		drive(j, threads, newRootSearch8(pos), plan)
	}
	out := outcomeStats{outcome: j.result(), elapsed: j.elapsed()}
	for _, t := range threads {
		out.nodes += t.nodes
	}
	if !out.ok {
		// Stopped before the first iteration finished: take the first
		// move of the shallow order rather than nothing.
		out.move, out.ok = e.quickMove(pos), true
		out.pv = []int{out.move}
	}
	return out
}

// centreOpen reports whether a reversi position still has an empty centre
// square (only those may be played, without flips).
func centreOpen(pos othello.Position) bool {
	const centre = 1<<27 | 1<<28 | 1<<35 | 1<<36
	return pos.Mode == othello.Reversi && (pos.Black.Lo|pos.White.Lo)&centre != centre
}
