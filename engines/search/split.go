package search

import (
	"sync"
	"sync/atomic"
)

// rootSplit is one window of an exact root solve shared by the threads of a
// search: each thread takes the next root move, searches it with a null
// window at the best score so far (the first move with the whole window)
// and, when the move beats it, again with the window above; the best of
// all is the root's value within (lo, hi).
type rootSplit struct {
	list   []rootMove
	p, o   uint64
	pl, ol int
	lo, hi int

	mu       sync.Mutex
	next     int
	best, bi int
	// started[i] is set once move i is handed out, with its window in
	// window[i]; done[i] once its result is in (which stops any other
	// thread still searching it); left counts the moves not done.
	started []bool
	window  []int
	done    []atomic.Bool
	left    int
	helpers sync.WaitGroup
}

// splitter hands root splits from the main thread to the helpers.
type splitter struct {
	work []chan *rootSplit // one per helper
	quit chan struct{}     // closed when the main thread is done
}

func newSplitter(helpers int) *splitter {
	s := &splitter{quit: make(chan struct{})}
	for range helpers {
		s.work = append(s.work, make(chan *rootSplit, 1))
	}
	return s
}

// help is a helper thread's loop: it works on each split it gets until the
// main thread is done.
func (t *thread) help(sp *splitter) {
	for {
		select {
		case s := <-sp.work[t.id-1]:
			t.searchSplit(s)
			s.helpers.Done()
		case <-sp.quit:
			return
		}
	}
}

// splitWindow8 solves the root moves within (lo, hi) with the helpers and
// moves the best to the front of list.
func (t *thread) splitWindow8(sp *splitter, list []rootMove, p, o uint64, pl, ol, lo, hi int) int {
	s := &rootSplit{list: list, p: p, o: o, pl: pl, ol: ol, lo: lo, hi: hi, best: -inf,
		started: make([]bool, len(list)), window: make([]int, len(list)), done: make([]atomic.Bool, len(list)), left: len(list)}
	s.helpers.Add(len(sp.work))
	for _, c := range sp.work {
		c <- s
	}
	t.searchSplit(s)
	s.helpers.Wait()
	if s.bi > 0 {
		m := list[s.bi]
		copy(list[1:s.bi+1], list[:s.bi])
		list[0] = m
	}
	return s.best
}

// searchSplit takes root moves from s until none is left or one fails
// high. A thread that finds every move handed out joins the search of one
// still running (Lazy SMP on it): whichever thread finishes a move first
// gives its result, and the others searching it stop.
func (t *thread) searchSplit(s *rootSplit) {
	for {
		s.mu.Lock()
		if s.left == 0 || s.best >= s.hi {
			s.mu.Unlock()
			return
		}
		i := -1
		if s.next < len(s.list) {
			i = s.next
			s.next++
			s.started[i], s.window[i] = true, max(s.lo, s.best)
		} else {
			for k := range s.list {
				if s.started[k] && !s.done[k].Load() {
					i = k
					break
				}
			}
		}
		if i < 0 {
			s.mu.Unlock()
			return
		}
		w := s.window[i]
		s.mu.Unlock()
		mv := &s.list[i]
		b := uint64(1) << uint(mv.sq)
		np, no := s.p|mv.flips|b, s.o&^mv.flips
		t.halt = &s.done[i]
		var v int
		if i == 0 {
			v = -t.exact8(no, np, s.ol, s.pl-1, -s.hi, -s.lo, false)
		} else {
			v = -t.exact8(no, np, s.ol, s.pl-1, -w-1, -w, false)
			if v > w && v < s.hi && !t.aborted {
				v = -t.exact8(no, np, s.ol, s.pl-1, -s.hi, -v, false)
			}
		}
		t.halt = nil
		if t.aborted {
			if t.job.stopped() {
				return
			}
			t.aborted = false // another thread finished this move
			continue
		}
		s.mu.Lock()
		if !s.done[i].Load() {
			s.done[i].Store(true)
			s.left--
			if v > s.best {
				s.best, s.bi = v, i
			}
			if s.best >= s.hi {
				for k := range s.done {
					s.done[k].Store(true)
				}
			}
		}
		s.mu.Unlock()
	}
}
