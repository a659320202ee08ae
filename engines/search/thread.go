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
// split points the thread works for) and reports whether to abort. It
// also yields the thread's P there (every 0.05–0.3 ms): with fewer Ps than
// busy goroutines (a bot given one core, the two legs' searches and a
// ponder at once) the timer that stops a search at its hard limit, the
// goroutine that cancels a ponder and the bot's own goroutines would
// otherwise wait for Go's forced preemption of a search (10–20 ms each
// hop), and a move answered that late is lost to a fallback
// (BenchmarkStopLatency, BenchmarkWakeWhilePondering). With a P to spare
// the yield costs nothing measurable (FFO #40–47 on 1 and 2 threads,
// BenchmarkMidgameStd: docs/measurements/2026-12-06-stability-cut-and-stop-latency.md).
func (t *thread) poll() bool {
	if t.nodes&1023 == 0 {
		runtime.Gosched()
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
