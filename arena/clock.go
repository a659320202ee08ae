package arena

import (
	"sync"
	"time"
)

// Clock tells the server the time. Every timing rule of the arena (players'
// clocks, the no-first-move abort, disconnects, challenge expiry, pings)
// reads it, so a test can drive time by hand.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real time.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// ManualClock is a clock that moves only when told to; safe for concurrent
// use. The zero value starts at the Unix epoch; use [NewManualClock] for a
// realistic start.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a manual clock reading start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's current reading.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}
