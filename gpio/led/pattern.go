package led

import (
	"fmt"
	"time"
)

// Pattern is a repeating on/off rhythm for one LED.
type Pattern int

// The patterns. All blink at 4 Hz or less (software-timed; the gpio
// character device has no PWM).
const (
	// Off keeps the LED dark.
	Off Pattern = iota
	// On keeps the LED lit.
	On
	// SlowBlink is 500 ms on, 500 ms off (1 Hz).
	SlowBlink
	// FastBlink is 125 ms on, 125 ms off (4 Hz).
	FastBlink
	// DoubleBlink is two 150 ms flashes 150 ms apart, then 1050 ms dark
	// (1.5 s period).
	DoubleBlink
	// Heartbeat is one short 100 ms flash a second.
	Heartbeat

	// numPatterns is how many patterns there are.
	numPatterns = iota
)

// Patterns returns every pattern, in the order of their values (Off
// first).
func Patterns() []Pattern {
	out := make([]Pattern, numPatterns)
	for i := range out {
		out[i] = Pattern(i)
	}
	return out
}

// String returns the pattern's name, such as "slow blink".
func (p Pattern) String() string {
	switch p {
	case Off:
		return "off"
	case On:
		return "on"
	case SlowBlink:
		return "slow blink"
	case FastBlink:
		return "fast blink"
	case DoubleBlink:
		return "double blink"
	case Heartbeat:
		return "heartbeat"
	}
	return fmt.Sprintf("pattern(%d)", int(p))
}

// steps returns the alternating lit and dark durations of one period,
// starting with lit; nil for the steady patterns.
func (p Pattern) steps() []time.Duration {
	const ms = time.Millisecond
	switch p {
	case SlowBlink:
		return []time.Duration{500 * ms, 500 * ms}
	case FastBlink:
		return []time.Duration{125 * ms, 125 * ms}
	case DoubleBlink:
		return []time.Duration{150 * ms, 150 * ms, 150 * ms, 1050 * ms}
	case Heartbeat:
		return []time.Duration{100 * ms, 900 * ms}
	}
	return nil
}

// Steps returns the alternating lit and dark durations of one period of
// p, starting with lit (nil for the steady patterns Off and On): the
// timing the bank drives, for pages that draw the LED.
func (p Pattern) Steps() []time.Duration { return p.steps() }

// Period returns the length of one repetition of p (0 for the steady
// patterns Off and On).
func (p Pattern) Period() time.Duration {
	var sum time.Duration
	for _, s := range p.steps() {
		sum += s
	}
	return sum
}

// At reports whether the LED is lit at elapsed time t since the pattern
// started, and how long until that changes (0 when it never does). A
// negative t counts as 0. Unknown patterns are dark.
func (p Pattern) At(t time.Duration) (lit bool, next time.Duration) {
	switch p {
	case On:
		return true, 0
	case Off:
		return false, 0
	}
	steps := p.steps()
	period := p.Period()
	if period == 0 {
		return false, 0
	}
	if t < 0 {
		t = 0
	}
	t %= period
	for i, s := range steps {
		if t < s {
			return i%2 == 0, s - t
		}
		t -= s
	}
	// Unreachable: t < period.
	return false, steps[0]
}
