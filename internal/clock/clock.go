// Package clock is the one time source of flipbot's timed code: the bot's
// polls, waits and move deadlines, the arena's players' clocks, the LEDs'
// blink patterns and the aggregated warnings all read the time and start
// their timers through a [Clock], so that a test can drive hours of them
// in milliseconds with the fake in clock/clocktest.
//
// One file, clock.go ([Clock], [Timer], [System], [Since], [Until]). A
// leaf: it imports nothing of the module, and any package may import it.
package clock

import "time"

// Clock tells the time and makes timers.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// NewTimer returns a timer that sends the time on its channel once d
	// has passed (at once when d ≤ 0).
	NewTimer(d time.Duration) Timer
	// AfterFunc calls f in its own goroutine once d has passed; the
	// timer's C is nil.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a one-shot timer made by a Clock.
type Timer interface {
	// C delivers the time once the duration has passed (nil for a timer
	// made by AfterFunc).
	C() <-chan time.Time
	// Stop prevents the timer from firing; it reports whether it was
	// still pending.
	Stop() bool
	// Reset makes the timer fire once d has passed from now; it reports
	// whether it was still pending. As for time.Timer since Go 1.23, a
	// stopped or reset timer's channel holds no stale value.
	Reset(d time.Duration) bool
}

// System returns the real clock.
func System() Clock { return system{} }

// Since returns the time elapsed on c since t.
func Since(c Clock, t time.Time) time.Duration { return c.Now().Sub(t) }

// Until returns the time on c until t.
func Until(c Clock, t time.Time) time.Duration { return t.Sub(c.Now()) }

type system struct{}

func (system) Now() time.Time { return time.Now() }

func (system) NewTimer(d time.Duration) Timer { return systemTimer{time.NewTimer(d)} }

func (system) AfterFunc(d time.Duration, f func()) Timer {
	return systemTimer{time.AfterFunc(d, f)}
}

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time        { return t.t.C }
func (t systemTimer) Stop() bool                 { return t.t.Stop() }
func (t systemTimer) Reset(d time.Duration) bool { return t.t.Reset(d) }
