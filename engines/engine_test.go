package engines

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSpecBudget(t *testing.T) {
	tests := []struct {
		name           string
		remaining, cap time.Duration
		want           time.Duration
	}{
		{"the cap wins with plenty of time (the spec's example: 10000)", 60 * time.Second, 10 * time.Second, 10 * time.Second},
		{"remaining − 750 ms wins near the end", 5 * time.Second, 10 * time.Second, 4250 * time.Millisecond},
		{"no cap: remaining − 750 ms", 60 * time.Second, 0, 59250 * time.Millisecond},
		{"never negative", 500 * time.Millisecond, 10 * time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, SpecBudget(tt.remaining, tt.cap))
		})
	}
}

func TestClockAt(t *testing.T) {
	at := time.Unix(100, 0)
	r := Request{Remaining: 30 * time.Second, At: at, Cap: 10 * time.Second}
	rem, b := r.ClockAt(at.Add(1500 * time.Millisecond))
	assert.Equal(t, 28500*time.Millisecond, rem, "the clock ran while the request waited")
	assert.Equal(t, 10*time.Second, b)
	rem, b = r.ClockAt(at.Add(25 * time.Second))
	assert.Equal(t, 5*time.Second, rem)
	assert.Equal(t, 4250*time.Millisecond, b)
	rem, b = r.ClockAt(at.Add(time.Minute))
	assert.Zero(t, rem, "never negative")
	assert.Zero(t, b)
	rem, _ = Request{Remaining: time.Second}.ClockAt(at)
	assert.Equal(t, time.Second, rem, "no At: read at the call")
}
