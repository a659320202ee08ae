package search

import (
	"context"
	"sync"

	"flipbot.dev/flipbot/engines/othello"
)

// flightKey identifies a search request: two requests with equal keys ask
// the same question (the two legs of a match often show one position). The
// position carries its game mode, so equal boards of different modes are
// different keys; only Move searches share flights.
type flightKey struct {
	pos othello.Position
}

// flight is one search in progress, with the callers waiting for it.
type flight struct {
	done chan struct{}
	res  outcomeStats
	err  error
}

// flights lets identical concurrent searches run once: the first caller
// searches, the others wait for its result.
type flights struct {
	mu sync.Mutex
	m  map[flightKey]*flight
}

// do runs f for key unless a search of key is already running, in which
// case it waits for that one and returns its result with shared = true. A
// waiter whose ctx ends first gets ctx's error.
func (fs *flights) do(ctx context.Context, key flightKey, f func() (outcomeStats, error)) (res outcomeStats, shared bool, err error) {
	fs.mu.Lock()
	if fs.m == nil {
		fs.m = map[flightKey]*flight{}
	}
	if fl, ok := fs.m[key]; ok {
		fs.mu.Unlock()
		select {
		case <-fl.done:
			return fl.res, true, fl.err
		case <-ctx.Done():
			return outcomeStats{}, true, ctx.Err()
		}
	}
	fl := &flight{done: make(chan struct{})}
	fs.m[key] = fl
	fs.mu.Unlock()
	defer func() {
		fs.mu.Lock()
		delete(fs.m, key)
		fs.mu.Unlock()
		close(fl.done)
	}()
	fl.res, fl.err = f()
	return fl.res, false, fl.err
}
