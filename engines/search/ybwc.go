package search

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Parallel exact solving by the Young Brothers Wait Concept and the helpful
// master of R. Feldmann, B. Monien, P. Mysliwietz and O. Vornberger,
// "Distributed game-tree search", ICCA Journal 12(2):65–73, 1989 (the
// chapter "Distributed game tree search" in Parallel Algorithms for Machine
// Intelligence and Vision, Springer 1990, names both): a node of the exact
// solver with at least splitMin empties (and the root) searches its first
// move alone; once that is done, if a thread of the search is idle, the
// remaining moves become a split point that every idle thread may take moves
// from. The thread that made the split point works on it too and, when no
// move is left to hand out, helps at split points below its own (the
// "helpful master") until the moves handed out are done. A cutoff at a split
// point stops every thread searching below it.

// splitMin is the fewest empties at which the solver shares a node's moves.
const splitMin = 12

// ybwc is the state that the threads of one exact solve share: the open
// split points and the idle threads. One mutex guards it all: split points
// are made at most a few thousand times a second, far from the hot path.
type ybwc struct {
	mu   sync.Mutex
	cond *sync.Cond
	open []*splitPoint
	// idle counts the threads waiting for work (read without the lock by
	// threads deciding whether to split).
	idle atomic.Int32
	quit bool
}

func newYBWC() *ybwc {
	y := &ybwc{}
	y.cond = sync.NewCond(&y.mu)
	return y
}

// shutdown releases the helpers when the main thread is done.
func (y *ybwc) shutdown() {
	y.mu.Lock()
	y.quit = true
	y.cond.Broadcast()
	y.mu.Unlock()
}

// splitPoint is a node whose moves several threads search. Its fields after
// stop are guarded by the ybwc mutex.
type splitPoint struct {
	// parent is the split point whose move the owner was searching when it
	// made this one (nil at the top): a cutoff there stops this one too.
	parent *splitPoint
	// stop is set on a cutoff: threads below it return.
	stop atomic.Bool

	p, o        uint64
	pl, ol      int // placements left (reversi), capsFree otherwise
	level       int // the solver pass's selectivity (endcut.go)
	alpha, beta int
	list        []move8
	// next is the next move to hand out; active counts the threads
	// searching one of the moves.
	next, active   int
	best, bestMove int
}

// stopped reports whether sp or one of its ancestors has been cut off.
func (sp *splitPoint) stopped() bool {
	for ; sp != nil; sp = sp.parent {
		if sp.stop.Load() {
			return true
		}
	}
	return false
}

// below reports whether sp is master or lies below it.
func (sp *splitPoint) below(master *splitPoint) bool {
	for ; sp != nil; sp = sp.parent {
		if sp == master {
			return true
		}
	}
	return false
}

// mustStop reports whether the thread has to return: the job is over, or a
// split point it works for has been cut off.
func (t *thread) mustStop() bool {
	return t.job.stopped() || t.sp.stopped()
}

// canSplit reports whether sharing the current node's moves could help: a
// thread of the search is idle.
func (t *thread) canSplit() bool { return t.yb != nil && t.yb.idle.Load() > 0 }

// split shares the moves of list (the first move of the node already
// searched, with best and bestMove its result) with the idle threads, and
// returns the node's best score and move. The caller checks t.aborted
// afterwards, as after any search.
func (t *thread) split(p, o uint64, pl, ol, alpha, beta, best, bestMove int, list []move8) (int, int) {
	rest := slices.Clone(list)
	for i := range rest {
		pickBest(rest, i)
	}
	sp := &splitPoint{parent: t.sp, p: p, o: o, pl: pl, ol: ol, level: t.level, alpha: alpha, beta: beta,
		list: rest, best: best, bestMove: bestMove}
	y := t.yb
	y.mu.Lock()
	y.open = append(y.open, sp)
	y.cond.Broadcast()
	t.work(sp)
	y.open = slices.DeleteFunc(y.open, func(s *splitPoint) bool { return s == sp })
	best, bestMove = sp.best, sp.bestMove
	y.mu.Unlock()
	return best, bestMove
}

// help is an idle helper thread's loop: it works on split points until the
// main thread is done.
func (t *thread) help(y *ybwc) {
	y.mu.Lock()
	t.work(nil)
	y.mu.Unlock()
}

// work searches moves of split points, the ybwc mutex held on entry and
// exit. With master (the split point this thread made), it takes moves of
// master and of split points below it, and returns when master has no
// move left and no thread searching one. Without master (a helper), it takes
// moves of any split point and returns when the solve is over.
func (t *thread) work(master *splitPoint) {
	y := t.yb
	for {
		if t.job.stopped() || y.quit && master == nil {
			return
		}
		if master != nil {
			if t.sp.stopped() {
				// Cut off above: leave master to its helpers, who stop
				// as well.
				t.aborted = true
				return
			}
			if master.active == 0 && (master.next >= len(master.list) || master.stop.Load()) {
				return
			}
		}
		sp := y.pick(master)
		if sp == nil {
			y.idle.Add(1)
			y.cond.Wait()
			y.idle.Add(-1)
			continue
		}
		i := sp.next
		sp.next++
		sp.active++
		lo := max(sp.alpha, sp.best)
		y.mu.Unlock()

		mv := sp.list[i]
		v := t.splitMove(sp, mv, lo)

		y.mu.Lock()
		sp.active--
		if !t.aborted && v > sp.best {
			sp.best, sp.bestMove = v, mv.sq
			if v >= sp.beta {
				sp.stop.Store(true)
			}
		}
		t.aborted = t.mustStop()
		y.cond.Broadcast()
	}
}

// pick returns an open split point with a move to hand out: master's own
// first, else the one nearest the root below master (any, without master).
// The ybwc mutex is held.
func (y *ybwc) pick(master *splitPoint) *splitPoint {
	if master != nil && master.next < len(master.list) && !master.stop.Load() {
		return master
	}
	for _, sp := range y.open {
		if sp.next < len(sp.list) && !sp.stop.Load() && (master == nil || sp.below(master)) {
			return sp
		}
	}
	return nil
}

// splitMove searches one move of sp by PVS: a null window at lo (the best
// score when the move was handed out), then the window above on a fail
// high.
func (t *thread) splitMove(sp *splitPoint, mv move8, lo int) int {
	saved, level := t.sp, t.level
	t.sp, t.level = sp, sp.level
	defer func() { t.sp, t.level = saved, level }()
	b := uint64(1) << uint(mv.sq)
	nextO := sp.p | mv.flips | b
	nextP := sp.o &^ mv.flips
	v := -t.exact8(nextP, nextO, sp.ol, sp.pl-1, -lo-1, -lo, false)
	if v > lo && v < sp.beta && !t.aborted {
		v = -t.exact8(nextP, nextO, sp.ol, sp.pl-1, -sp.beta, -v, false)
	}
	return v
}
