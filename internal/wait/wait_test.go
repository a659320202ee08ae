package wait

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/clock/clocktest"
)

func TestSleep(t *testing.T) {
	assert.NoError(t, Sleep(context.Background(), clock.System(), time.Millisecond), "the full time passed")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, clock.System(), time.Hour), context.Canceled, "an ended context ends the sleep at once")

	why := errors.New("shutting down")
	ctx, cancelCause := context.WithCancelCause(context.Background())
	time.AfterFunc(10*time.Millisecond, func() { cancelCause(why) })
	assert.ErrorIs(t, Sleep(ctx, clock.System(), time.Hour), why, "the context's cause")
}

func TestSleepRunsOnItsClock(t *testing.T) {
	c := clocktest.New(time.Unix(0, 0))
	done := make(chan error, 1)
	go func() { done <- Sleep(context.Background(), c, time.Minute) }()
	c.WaitTimers(1)
	c.Advance(59 * time.Second)
	select {
	case <-done:
		t.Fatal("woke before the clock's minute")
	case <-time.After(50 * time.Millisecond):
	}
	c.Advance(time.Second)
	assert.NoError(t, <-done)
}
