package search

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// Pool is a budget of cores shared by searches that run at the same time
// (the two legs of a match, several matches): a search takes between one
// and its engine's Threads cores from it and gives them back when done, so
// that all searches together use no more threads than the pool holds — with
// one exception: a search that finds every core taken for longer than a
// tenth of its think time (at most 100 ms) runs on one thread anyway rather
// than miss its move.
// The zero value is not usable; create one with [NewPool]. A Pool is safe
// for concurrent use.
type Pool struct {
	tokens chan struct{}
}

// NewPool returns a pool of n cores (runtime.NumCPU() when n ≤ 0).
func NewPool(n int) *Pool {
	if n <= 0 {
		n = runtime.NumCPU()
	}
	p := &Pool{tokens: make(chan struct{}, n)}
	for range n {
		p.tokens <- struct{}{}
	}
	return p
}

// Size returns the number of cores of the pool.
func (p *Pool) Size() int { return cap(p.tokens) }

// acquire waits up to maxWait for one core, then takes up to want−1 more
// that are free at once, and returns how many it took. When no core frees
// up within maxWait it returns 0: the caller then searches on one thread
// outside the budget rather than miss its move while another search holds
// every core.
func (p *Pool) acquire(ctx context.Context, want int, maxWait time.Duration) (int, error) {
	timer := time.NewTimer(maxWait)
	defer timer.Stop()
	select {
	case <-p.tokens:
	case <-timer.C:
		return 0, nil
	case <-ctx.Done():
		return 0, fmt.Errorf("wait for a core: %w", ctx.Err())
	}
	got := 1
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

// release gives n cores back.
func (p *Pool) release(n int) {
	for range n {
		p.tokens <- struct{}{}
	}
}
