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
	// soft is the time after which no new iteration starts.
	soft time.Duration

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
