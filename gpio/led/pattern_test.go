package led

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

const ms = time.Millisecond

func TestPatternAt(t *testing.T) {
	tests := []struct {
		p    Pattern
		t    time.Duration
		lit  bool
		next time.Duration
	}{
		{Off, 0, false, 0},
		{Off, time.Hour, false, 0},
		{On, 0, true, 0},
		{On, time.Hour, true, 0},
		{SlowBlink, 0, true, 500 * ms},
		{SlowBlink, 499 * ms, true, 1 * ms},
		{SlowBlink, 500 * ms, false, 500 * ms},
		{SlowBlink, 1000 * ms, true, 500 * ms},
		{FastBlink, 130 * ms, false, 120 * ms},
		{DoubleBlink, 0, true, 150 * ms},
		{DoubleBlink, 150 * ms, false, 150 * ms},
		{DoubleBlink, 300 * ms, true, 150 * ms},
		{DoubleBlink, 450 * ms, false, 1050 * ms},
		{DoubleBlink, 1499 * ms, false, 1 * ms},
		{DoubleBlink, 1500 * ms, true, 150 * ms},
		{Heartbeat, 50 * ms, true, 50 * ms},
		{Heartbeat, 100 * ms, false, 900 * ms},
		{SlowBlink, -5 * ms, true, 500 * ms},
		{Pattern(99), 0, false, 0},
	}
	for _, tt := range tests {
		lit, next := tt.p.At(tt.t)
		assert.Equal(t, tt.lit, lit, "%v at %v", tt.p, tt.t)
		assert.Equal(t, tt.next, next, "%v at %v", tt.p, tt.t)
	}
}

func TestPatternsStayBelowTenHertzAndFiveFlashes(t *testing.T) {
	for p := Off; p <= Heartbeat; p++ {
		steps := p.steps()
		for _, s := range steps {
			assert.GreaterOrEqual(t, s, 50*ms, "%v: a step shorter than 50 ms blinks faster than 10 Hz", p)
		}
		assert.LessOrEqual(t, (len(steps)+1)/2, 4, "%v: more than 4 flashes per period", p)
		assert.NotContains(t, p.String(), "pattern(", "every pattern has a name")
	}
	assert.Equal(t, "pattern(42)", Pattern(42).String())
}

// TestStepsAddUpToThePeriod: the steps a page draws are the pattern's
// timing: they add up to its period and alternate as At says.
func TestStepsAddUpToThePeriod(t *testing.T) {
	for p := Off; p < numPatterns; p++ {
		var sum time.Duration
		for i, s := range p.Steps() {
			lit, next := p.At(sum)
			assert.Equal(t, i%2 == 0, lit, "%v step %d", p, i)
			assert.Equal(t, s, next, "%v step %d", p, i)
			sum += s
		}
		assert.Equal(t, p.Period(), sum, "%v", p)
	}
	assert.Nil(t, On.Steps())
}

func TestPatternsListsEveryNamedPattern(t *testing.T) {
	assert.Equal(t, []Pattern{Off, On, SlowBlink, FastBlink, DoubleBlink, Heartbeat}, Patterns())
	assert.Equal(t, "pattern(6)", Pattern(len(Patterns())).String(), "a pattern past the list has no name")
	seen := map[string]bool{}
	for _, p := range Patterns() {
		assert.NotContains(t, p.String(), "pattern(", "%d has a name", int(p))
		seen[p.String()] = true
	}
	assert.Len(t, seen, len(Patterns()), "each its own name")
}
