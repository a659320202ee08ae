package bot

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The spec's reconnect intervals grow from 1 s to 30 s: jitter may move a
// wait within those bounds, never below 1 s (it used to shorten the first
// retry to 0.75 s) nor above 30 s.
func TestReconnectWaitStaysWithinTheSpecBounds(t *testing.T) {
	tm := Timing{}.withDefaults()
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 16 * time.Second, 30 * time.Second} {
		lo, hi := time.Duration(1<<62), time.Duration(0)
		for range 2000 {
			w := tm.retryWait(d)
			lo, hi = min(lo, w), max(hi, w)
		}
		assert.GreaterOrEqual(t, lo, time.Second, "backoff %v", d)
		assert.LessOrEqual(t, hi, 30*time.Second, "backoff %v", d)
		assert.GreaterOrEqual(t, lo, d*3/4, "backoff %v", d)
		if d < 30*time.Second {
			assert.Greater(t, hi, d, "backoff %v: jitter may lengthen a wait", d)
		}
	}
}
