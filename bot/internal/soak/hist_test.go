package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDurationHistQuantiles(t *testing.T) {
	var h durationHist
	assert.Equal(t, time.Duration(0), h.quantile(0.5))
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Millisecond)
	}
	h.add(0) // below the first bucket
	within := func(want, got time.Duration) {
		t.Helper()
		assert.InEpsilon(t, float64(want), float64(got), 0.021, "want %v, got %v", want, got)
	}
	within(500*time.Millisecond, h.quantile(0.5))
	within(990*time.Millisecond, h.quantile(0.99))
	assert.Equal(t, time.Second, h.quantile(1))
	assert.Equal(t, time.Second, h.max)
	assert.Equal(t, int64(1001), h.n)
	h.add(100 * time.Hour) // the last bucket
	assert.Equal(t, 100*time.Hour, h.quantile(1))
}
