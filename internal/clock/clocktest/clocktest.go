// Package clocktest is the fake beside package clock: a [Clock] whose time
// moves only when the test calls [Clock.Advance], and which lets the test
// wait until the code under test is blocked on its timers ([Clock.WaitTimers])
// and find when the next one falls due ([Clock.Next]).
//
// One file, clocktest.go ([Clock], [New]). It imports internal/clock only.
package clocktest

import (
	"slices"
	"sync"
	"time"

	"flipbot.dev/flipbot/internal/clock"
)

// Clock is a fake clock.Clock; safe for concurrent use. The zero value is
// not usable: use New.
type Clock struct {
	mu     sync.Mutex
	cond   *sync.Cond
	now    time.Time
	timers []*timer // pending, in no order
}

var _ clock.Clock = (*Clock)(nil)

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

// NewTimer returns a timer that fires when the clock has been advanced by
// d (at once when d ≤ 0).
func (c *Clock) NewTimer(d time.Duration) clock.Timer {
	t := &timer{c: c, ch: make(chan time.Time, 1)}
	t.Reset(d)
	return t
}

// AfterFunc returns a timer that calls f, in the goroutine of the Advance
// that makes it due, when the clock has been advanced by d (d ≤ 0: at the
// next Advance).
func (c *Clock) AfterFunc(d time.Duration, f func()) clock.Timer {
	t := &timer{c: c, f: f}
	t.Reset(max(d, 0))
	return t
}

// Pending returns the number of timers neither fired nor stopped.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// IsPending reports whether t, a timer of this clock, has neither fired
// nor been stopped.
func (c *Clock) IsPending(t clock.Timer) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ft, ok := t.(*timer)
	return ok && slices.Contains(c.timers, ft)
}

// WaitTimers blocks until at least n timers are pending.
func (c *Clock) WaitTimers(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers) < n {
		c.cond.Wait()
	}
}

// Next returns the time until the earliest pending timer falls due, and
// false when none is pending.
func (c *Clock) Next() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.earliest(time.Time{})
	if t == nil {
		return 0, false
	}
	return t.when.Sub(c.now), true
}

// Advance moves the clock by d. The timers that fall due fire one by one
// in the order of their times, the clock reading each one's time as it
// fires: a channel timer sends that time, a function is called in the
// caller's goroutine (one that starts another timer due within d fires
// too). The clock then reads its start plus d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	for {
		t := c.earliest(end)
		if t == nil {
			break
		}
		c.remove(t)
		if t.when.After(c.now) {
			c.now = t.when
		}
		if t.f != nil {
			c.mu.Unlock()
			t.f()
			c.mu.Lock()
			continue
		}
		t.send(c.now)
	}
	if end.After(c.now) {
		c.now = end
	}
	c.mu.Unlock()
}

// earliest returns the pending timer due first, among those due by end
// (zero end: any), or nil. (mu held)
func (c *Clock) earliest(end time.Time) *timer {
	var first *timer
	for _, t := range c.timers {
		if !end.IsZero() && t.when.After(end) {
			continue
		}
		if first == nil || t.when.Before(first.when) {
			first = t
		}
	}
	return first
}

// remove takes t off the pending list and reports whether it was on it.
// (mu held)
func (c *Clock) remove(t *timer) bool {
	i := slices.Index(c.timers, t)
	if i < 0 {
		return false
	}
	c.timers = slices.Delete(c.timers, i, i+1)
	return true
}

// timer is a fake clock.Timer: a channel timer (ch) or a function (f).
type timer struct {
	c    *Clock
	when time.Time
	ch   chan time.Time
	f    func()
}

func (t *timer) C() <-chan time.Time { return t.ch }

// Stop removes the timer; it reports whether it was pending. A value the
// timer sent and nobody received is dropped, as time.Timer's is.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	t.drain()
	return t.c.remove(t)
}

// Reset makes the timer due d after the clock's time (a channel timer with
// d ≤ 0 fires at once); it reports whether it was pending.
func (t *timer) Reset(d time.Duration) bool {
	c := t.c
	c.mu.Lock()
	defer c.mu.Unlock()
	t.drain()
	was := c.remove(t)
	t.when = c.now.Add(d)
	if d <= 0 && t.f == nil {
		t.send(c.now)
		return was
	}
	c.timers = append(c.timers, t)
	c.cond.Broadcast()
	return was
}

// send delivers now on the channel (holding at most one value).
func (t *timer) send(now time.Time) {
	select {
	case t.ch <- now:
	default:
	}
}

// drain drops an undelivered value of a channel timer.
func (t *timer) drain() {
	if t.ch == nil {
		return
	}
	select {
	case <-t.ch:
	default:
	}
}
