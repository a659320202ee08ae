package search

import (
	"sync"
	"sync/atomic"
	"time"
)

// job is one search of one position by one or more threads: the stop
// flags, the time limits and the best result so far.
type job struct {
	// stop is set at the hard time limit or when the caller's context ends;
	// phase is set when the current phase (midgame deepening, exact solve)
	// is over, so that its helper threads return.
	stop, phase atomic.Bool
	start       time.Time
	// soft is the think the search aims at (see startIteration); hard,
	// when above 0, is where the search is stopped.
	soft, hard time.Duration

	mu   sync.Mutex
	best outcome
}

// outcome is a search's best result so far.
type outcome struct {
	move, score, depth int
	exact, ok          bool
	pv                 []int
}

// stopped reports whether the thread must return: the job or its phase is
// over.
func (j *job) stopped() bool { return j.stop.Load() || j.phase.Load() }

// publish records a result of the main thread (or of any thread for an exact
// solve).
//
// A midgame result shallower than the one held is ignored: a later phase
// that deepens again from depth 1 must not replace a deeper answer.
func (j *job) publish(o outcome) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !o.exact && j.best.ok && (j.best.exact || o.depth < j.best.depth) {
		return
	}
	j.best = o
	j.best.ok = true
}

// publishMove records a better root move found in an unfinished iteration.
func (j *job) publishMove(move, score int) {
	j.mu.Lock()
	if j.best.ok && !j.best.exact {
		j.best.move, j.best.score, j.best.pv = move, score, []int{move}
	}
	j.mu.Unlock()
}

// result returns the best result so far.
func (j *job) result() outcome {
	j.mu.Lock()
	defer j.mu.Unlock()
	o := j.best
	o.pv = append([]int(nil), o.pv...)
	return o
}

// startIteration reports whether the main thread starts another midgame
// iteration, the last two having taken last and prev: when the next one,
// expected to take last times their ratio (nextIteration), ends nearer to
// the soft time than the search would by stopping now, and before the
// hard limit. Iterative deepening spends its think in steps of one
// iteration, each about 2–3 times the one before; stopping at the first
// iteration that would pass the soft time, or at a fixed fraction of it
// (two fifths before), spends about two thirds of it; choosing the nearer
// end spends about all of it, some moves a little more and some a little
// less, and the moves after it plan with what this one left. Measured on
// the bot's own moves at 22–44 empties of eight legs at 60 s: 63 % of the
// plan's think before, 88 % with this rule
// (docs/measurements/2026-12-07-iterations-spend-the-think.md).
func (j *job) startIteration(last, prev time.Duration) bool {
	e := j.elapsed()
	next := nextIteration(last, prev)
	if j.hard > 0 && e+next > j.hard {
		return false
	}
	return e < j.soft && next/2 <= j.soft-e
}

// nextIteration is the expected time of the next iteration after two that
// took last and prev: last times their ratio, kept within 1.5–6 (the
// ratio of two short iterations is noise: 3 then).
func nextIteration(last, prev time.Duration) time.Duration {
	r := 3.0
	if prev >= time.Millisecond && last >= time.Millisecond {
		r = min(max(float64(last)/float64(prev), 1.5), 6)
	}
	return time.Duration(float64(last) * r)
}

// elapsed is the time since the job started.
func (j *job) elapsed() time.Duration { return time.Since(j.start) }

// runPhase runs f on every thread at once, the main thread (index 0) in the
// calling goroutine, and returns when all are done. When the main thread
// returns, the phase ends and the helpers are told to stop; f may also end
// it earlier by setting j.phase.
func runPhase(j *job, threads []*thread, f func(t *thread)) {
	j.phase.Store(false)
	var wg sync.WaitGroup
	for _, t := range threads[1:] {
		t.aborted = false
		wg.Add(1)
		go func(t *thread) {
			defer wg.Done()
			f(t)
		}(t)
	}
	threads[0].aborted = false
	f(threads[0])
	j.phase.Store(true)
	wg.Wait()
}
