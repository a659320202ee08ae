package search

import (
	"runtime"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// inf bounds every score of the search (eval units and discs alike).
const inf = 30000

// thread is the state of one search thread. Threads of one search share the
// table and the stop flag; everything else is private.
type thread struct {
	tt   *table
	ev8  eval.Evaluator8
	ev10 eval.Evaluator10
	// salt mixes the mode into table keys: std and anti positions with the
	// same discs have different values.
	salt uint64
	// anti scores fewer discs as better; toWinner gives the empty squares
	// of a finished game to its winner (the FFO convention) instead of to
	// nobody (FlipSight's).
	anti, toWinner bool
	// blocked is the 10×10 board's unusable squares (octagon).
	blocked othello.Bits
	// mpc is the mode's Multi-ProbCut model (nil: off); cutValue is the
	// value of the last cut.
	mpc      *probCutModel
	cutValue int
	// level is the selectivity of the exact solver's current pass
	// (endcut.go): 0 exact, 1 … endLevels selective.
	level int
	// id is the thread's number in its search; 0 is the main thread.
	id    int
	nodes uint64
	job   *job
	// yb, during an exact solve on several threads, is the work they share
	// (ybwc.go); sp is the split point whose move this thread is
	// searching (nil outside any).
	yb *ybwc
	sp *splitPoint
	// aborted is set once the stop flag has been seen; every search
	// function returns at once afterwards and its scores mean nothing.
	aborted bool
}

// poll checks the stop flags every 1024 nodes (the job's and those of the
// split points the thread works for) and reports whether to abort. A
// ponder search's threads also yield their P there (job.yield).
func (t *thread) poll() bool {
	if t.nodes&1023 == 0 {
		if t.job.yield {
			runtime.Gosched()
		}
		if t.mustStop() {
			t.aborted = true
		}
	}
	return t.aborted
}

// floorDiv and ceilDiv convert eval-unit bounds to disc bounds.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }
