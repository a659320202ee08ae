// Package fakeclock is a manual clock for tests of timed code: time moves
// only when the test calls Advance, and WaitTimers lets the test wait
// until the code under test is blocked on its timers.
//
// One file, fakeclock.go ([Clock], [Timer]). It imports nothing of the
// module; the tests of gpio and gpio/led use it.
package fakeclock

import (
	"sync"
	"time"
)

// Clock is a fake clock; the zero value is not usable, use New.
type Clock struct {
	mu     sync.Mutex
	cond   *sync.Cond
	now    time.Time
	timers []*Timer
}

// New returns a clock reading start.
func New(start time.Time) *Clock {
	c := &Clock{now: start}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// NewTimer returns a timer firing when the clock has advanced by d.
func (c *Clock) NewTimer(d time.Duration) *Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &Timer{c: c, when: c.now.Add(d), ch: make(chan time.Time, 1)}
	if d <= 0 {
		t.ch <- c.now
		return t
	}
	c.timers = append(c.timers, t)
	c.cond.Broadcast()
	return t
}

// Pending returns the number of timers not yet fired or stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// WaitTimers blocks until at least n timers are pending.
func (c *Clock) WaitTimers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers) < n {
		c.cond.Wait()
	}
}

// Next returns the time until the earliest pending timer fires, and false
// when none is pending.
func (c *Clock) Next() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return 0, false
	}
	min := c.timers[0].when
	for _, t := range c.timers[1:] {
		if t.when.Before(min) {
			min = t.when
		}
	}
	return min.Sub(c.now), true
}

// Advance moves the clock by d and fires the timers that became due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if !t.when.After(c.now) {
			t.ch <- c.now
			continue
		}
		kept = append(kept, t)
	}
	clear(c.timers[len(kept):])
	c.timers = kept
}

// Timer is a fake timer.
type Timer struct {
	c    *Clock
	when time.Time
	ch   chan time.Time
}

// C returns the channel the timer fires on.
func (t *Timer) C() <-chan time.Time { return t.ch }

// Pending reports whether the timer has neither fired nor been stopped.
func (t *Timer) Pending() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for _, x := range t.c.timers {
		if x == t {
			return true
		}
	}
	return false
}

// Stop removes the timer; it reports whether it was pending.
func (t *Timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for i, x := range t.c.timers {
		if x == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			return true
		}
	}
	return false
}
