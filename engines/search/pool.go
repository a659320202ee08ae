package search

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Pool is a budget of cores shared by searches that run at the same time
// (the two legs of a match, several matches): a search takes between one
// and its engine's Threads cores from it and gives them back when done, so
// that all searches together use no more threads than the pool holds — with
// one exception: a search that finds every core taken for longer than a
// tenth of its think time (at most 100 ms) runs on one thread anyway rather
// than miss its move.
//
// Ponder searches ([Engine.Ponder]) take only idle cores, and yield them
// to a move: a move's search that starts while ponder searches hold cores
// stops them and waits for their cores before it takes its own, and no
// ponder search takes a core while a move's search is waiting for one or
// runs without one.
//
// The zero value is not usable; create one with [NewPool]. A Pool is safe
// for concurrent use.
type Pool struct {
	tokens chan struct{}

	mu sync.Mutex
	// moving counts the move searches waiting for their cores: ponder
	// searches take none meanwhile.
	moving int
	// ponders are the ponder searches holding cores.
	ponders map[*ponderHold]struct{}
	// changed is closed (and replaced) whenever cores may have become
	// available to ponder searches.
	changed chan struct{}
}

// ponderHold is the cores one ponder search holds and how to stop it.
type ponderHold struct {
	n    int
	stop func()
	// released is closed when the cores are back in the pool.
	released chan struct{}
}

// NewPool returns a pool of n cores (runtime.NumCPU() when n ≤ 0).
func NewPool(n int) *Pool {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	p := &Pool{tokens: make(chan struct{}, n), ponders: map[*ponderHold]struct{}{}, changed: make(chan struct{})}
	for range n {
		p.tokens <- struct{}{}
	}
	return p
}

// Size returns the number of cores of the pool.
func (p *Pool) Size() int { return cap(p.tokens) }

// PoolState is a snapshot of a pool's use.
type PoolState struct {
	// Free is the number of cores no search holds.
	Free int
	// Pondering is the number of cores ponder searches hold.
	Pondering int
	// MovesWaiting is the number of move searches waiting for cores.
	MovesWaiting int
}

// State returns a snapshot of the pool's use.
func (p *Pool) State() PoolState {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := PoolState{Free: len(p.tokens), MovesWaiting: p.moving}
	for h := range p.ponders {
		s.Pondering += h.n
	}
	return s
}

// acquire waits up to maxWait for one core, then takes up to want−1 more
// that are free at once, and returns how many it took. When no core frees
// up within maxWait it returns 0: the caller then searches on one thread
// outside the budget rather than miss its move while another search holds
// every core, and must call release(0) when done: until then no ponder
// search takes a core that frees up.
//
// It is the acquire of a move's search: ponder searches holding cores are
// stopped first, and their cores are waited for (maxWait does not apply:
// they come back within a thousand nodes) before any is taken, so that the
// move gets every core the ponder searches held.
func (p *Pool) acquire(ctx context.Context, want int, maxWait time.Duration) (got int, err error) {
	p.mu.Lock()
	p.moving++
	held := make([]*ponderHold, 0, len(p.ponders))
	for h := range p.ponders {
		held = append(held, h)
	}
	p.mu.Unlock()
	defer func() {
		if got == 0 && err == nil {
			// Searching outside the budget: still a move that lacks a
			// core, until release(0).
			return
		}
		p.doneMoving()
	}()
	// A ponder search sees its stop within a thousand nodes: its cores
	// come back at once, and are waited for whatever maxWait says.
	for _, h := range held {
		h.stop()
	}
	for _, h := range held {
		select {
		case <-h.released:
		case <-ctx.Done():
			return 0, fmt.Errorf("wait for a core: %w", ctx.Err())
		}
	}
	select {
	case <-p.tokens:
	default:
		timer := time.NewTimer(maxWait)
		defer timer.Stop()
		select {
		case <-p.tokens:
		case <-timer.C:
			return 0, nil
		case <-ctx.Done():
			return 0, fmt.Errorf("wait for a core: %w", ctx.Err())
		}
	}
	got = 1
	for got < want {
		select {
		case <-p.tokens:
			got++
		default:
			return got, nil
		}
	}
	return got, nil
}

// release gives n cores back; release(0) ends a search that acquire gave
// no core.
func (p *Pool) release(n int) {
	if n == 0 {
		p.doneMoving()
		return
	}
	for range n {
		p.tokens <- struct{}{}
	}
	p.mu.Lock()
	p.signal()
	p.mu.Unlock()
}

// doneMoving ends a move's wait for cores.
func (p *Pool) doneMoving() {
	p.mu.Lock()
	p.moving--
	p.signal()
	p.mu.Unlock()
}

// signal wakes the ponder searches waiting for cores (p.mu held).
func (p *Pool) signal() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// acquirePonder waits until cores are idle (free, with no move's search
// waiting for any) and takes up to want of them for a ponder search, which
// stop stops when a move's search needs them. The search gives them back
// with releasePonder.
func (p *Pool) acquirePonder(ctx context.Context, want int, stop func()) (*ponderHold, error) {
	for {
		p.mu.Lock()
		if p.moving == 0 && len(p.tokens) > 0 {
			h := &ponderHold{stop: stop, released: make(chan struct{})}
			for h.n < want {
				select {
				case <-p.tokens:
					h.n++
					continue
				default:
				}
				break
			}
			if h.n > 0 {
				p.ponders[h] = struct{}{}
				p.mu.Unlock()
				return h, nil
			}
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, fmt.Errorf("wait for an idle core: %w", ctx.Err())
		}
	}
}

// releasePonder gives a ponder search's cores back.
func (p *Pool) releasePonder(h *ponderHold) {
	p.mu.Lock()
	delete(p.ponders, h)
	p.mu.Unlock()
	for range h.n {
		p.tokens <- struct{}{}
	}
	close(h.released)
	p.mu.Lock()
	p.signal()
	p.mu.Unlock()
}
