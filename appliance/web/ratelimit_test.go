package web

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailureLimiter(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	l := newFailureLimiter(clock, time.Minute, 3, 5)
	for i := 0; i < 3; i++ {
		try, _ := l.begin("a")
		require.NotNil(t, try, "attempt %d", i)
		require.False(t, try.failed())
	}
	try, wait := l.begin("a")
	assert.Nil(t, try, "4th try of the same client within the window")
	assert.Equal(t, time.Minute, wait)
	try, _ = l.begin("b")
	require.NotNil(t, try, "another client is not blocked by a's failures")
	try.ok()
	try, _ = l.begin("b")
	require.NotNil(t, try, "a right try is given back")
	assert.False(t, try.failed())
	try, _ = l.begin("c")
	assert.True(t, try.failed(), "5 failures overall reach the global count")
	try, _ = l.begin("d")
	assert.NotNil(t, try, "the global count blocks nobody")
	now = now.Add(time.Minute)
	try, _ = l.begin("a")
	assert.NotNil(t, try, "the window has passed")
}

func TestFailureLimiterCountsTriesInProgress(t *testing.T) {
	l := newFailureLimiter(time.Now, time.Minute, 3, 100)
	var tries []*limitTry
	for range 3 {
		try, _ := l.begin("a")
		require.NotNil(t, try)
		tries = append(tries, try)
	}
	try, _ := l.begin("a")
	assert.Nil(t, try, "three tries in progress use the budget")
	tries[0].ok()
	try, _ = l.begin("a")
	assert.NotNil(t, try, "a try given back frees its place")
}

func TestFailureLimiterIPv6Network(t *testing.T) {
	l := newFailureLimiter(time.Now, time.Minute, 2, 100)
	for _, a := range []string{"fd00::1", "fd00::2"} {
		try, _ := l.begin(a)
		require.NotNil(t, try)
		try.failed()
	}
	try, _ := l.begin("fd00::ffff:1")
	assert.Nil(t, try, "one /64 is one client")
	try, _ = l.begin("fd00:0:0:1::1")
	assert.NotNil(t, try, "another /64 is another")
}
