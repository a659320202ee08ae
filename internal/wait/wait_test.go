package wait

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSleep(t *testing.T) {
	assert.NoError(t, Sleep(context.Background(), time.Millisecond), "the full time passed")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, Sleep(ctx, time.Hour), context.Canceled, "an ended context ends the sleep at once")

	why := errors.New("shutting down")
	ctx, cancelCause := context.WithCancelCause(context.Background())
	time.AfterFunc(10*time.Millisecond, func() { cancelCause(why) })
	assert.ErrorIs(t, Sleep(ctx, time.Hour), why, "the context's cause")
}
