package search

import "sync"

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
	helpers  sync.WaitGroup
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
	s := &rootSplit{list: list, p: p, o: o, pl: pl, ol: ol, lo: lo, hi: hi, best: -inf}
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

// searchSplit takes root moves from s until none is left or one fails high.
func (t *thread) searchSplit(s *rootSplit) {
	for {
		s.mu.Lock()
		if s.next >= len(s.list) || s.best >= s.hi {
			s.mu.Unlock()
			return
		}
		i := s.next
		s.next++
		w := max(s.lo, s.best)
		s.mu.Unlock()
		mv := &s.list[i]
		b := uint64(1) << uint(mv.sq)
		np, no := s.p|mv.flips|b, s.o&^mv.flips
		var v int
		if i == 0 {
			v = -t.exact8(no, np, s.ol, s.pl-1, -s.hi, -s.lo, false)
		} else {
			v = -t.exact8(no, np, s.ol, s.pl-1, -w-1, -w, false)
			if v > w && v < s.hi && !t.aborted {
				v = -t.exact8(no, np, s.ol, s.pl-1, -s.hi, -v, false)
			}
		}
		if t.aborted {
			return
		}
		s.mu.Lock()
		if v > s.best {
			s.best, s.bi = v, i
		}
		s.mu.Unlock()
	}
}
