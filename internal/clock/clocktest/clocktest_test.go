package clocktest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var epoch = time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)

func received(t *testing.T, ch <-chan time.Time) (time.Time, bool) {
	t.Helper()
	select {
	case at := <-ch:
		return at, true
	default:
		return time.Time{}, false
	}
}

func TestTimersFireInTheirOrderAtTheirTimes(t *testing.T) {
	c := New(epoch)
	var order []string
	late := c.NewTimer(3 * time.Second)
	c.AfterFunc(2*time.Second, func() {
		order = append(order, "func at "+c.Now().Sub(epoch).String())
		c.AfterFunc(500*time.Millisecond, func() { order = append(order, "chained at "+c.Now().Sub(epoch).String()) })
	})
	early := c.NewTimer(time.Second)
	assert.Equal(t, 3, c.Pending())
	next, ok := c.Next()
	require.True(t, ok)
	assert.Equal(t, time.Second, next)

	c.Advance(2500 * time.Millisecond)
	at, ok := received(t, early.C())
	require.True(t, ok)
	assert.Equal(t, epoch.Add(time.Second), at, "a channel timer sends its own time")
	assert.Equal(t, []string{"func at 2s", "chained at 2.5s"}, order)
	_, ok = received(t, late.C())
	assert.False(t, ok, "not due yet")
	assert.Equal(t, epoch.Add(2500*time.Millisecond), c.Now())

	c.Advance(time.Second)
	at, ok = received(t, late.C())
	require.True(t, ok)
	assert.Equal(t, epoch.Add(3*time.Second), at)
	assert.Equal(t, 0, c.Pending())
	_, ok = c.Next()
	assert.False(t, ok)
}

func TestStopAndResetDropWhatWasNotReceived(t *testing.T) {
	c := New(epoch)
	tm := c.NewTimer(time.Second)
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop(), "stopped already")
	c.Advance(time.Minute)
	_, ok := received(t, tm.C())
	assert.False(t, ok, "a stopped timer never fires")

	assert.False(t, tm.Reset(time.Second), "it was not pending")
	c.Advance(time.Second) // fires, nobody receives
	assert.False(t, tm.Reset(2*time.Second))
	_, ok = received(t, tm.C())
	assert.False(t, ok, "Reset dropped the stale value")
	c.Advance(2 * time.Second)
	at, ok := received(t, tm.C())
	require.True(t, ok)
	assert.Equal(t, epoch.Add(time.Minute+3*time.Second), at)

	now := c.NewTimer(0)
	at, ok = received(t, now.C())
	require.True(t, ok, "d ≤ 0 fires at once")
	assert.Equal(t, c.Now(), at)

	called := false
	f := c.AfterFunc(time.Second, func() { called = true })
	assert.True(t, f.Stop())
	c.Advance(time.Hour)
	assert.False(t, called)
	assert.Nil(t, f.C())
}

func TestWaitTimersWaitsForTheCodeUnderTest(t *testing.T) {
	c := New(epoch)
	fired := make(chan time.Time)
	go func() {
		tm := c.NewTimer(time.Minute)
		fired <- <-tm.C()
	}()
	c.WaitTimers(1)
	c.Advance(time.Minute)
	assert.Equal(t, epoch.Add(time.Minute), <-fired)
}
