package proc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlotRestartsAndCounts(t *testing.T) {
	slot := NewSlot(func() (*Process, error) {
		return start(t, nil, Config{QuitLine: "quit"}, "echo"), nil
	})
	require.True(t, slot.Acquire(context.Background()))
	p, fresh, err := slot.Process()
	require.NoError(t, err)
	assert.True(t, fresh)
	again, fresh, err := slot.Process()
	require.NoError(t, err)
	assert.Same(t, p, again, "a running process is kept")
	assert.False(t, fresh)
	assert.True(t, slot.Running())

	// The engine dies by itself: the next call starts another and counts a crash.
	require.NoError(t, p.Send("quit"))
	select {
	case <-p.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not exit")
	}
	p2, fresh, err := slot.Process()
	require.NoError(t, err)
	assert.NotSame(t, p, p2)
	assert.True(t, fresh)
	starts, crashes := slot.Stats()
	assert.Equal(t, [2]int{2, 1}, [2]int{starts, crashes})

	// Retired on purpose (a hung engine killed at the cap) and as a crash.
	slot.Retire(p2, false)
	assert.False(t, slot.Running())
	p3, _, err := slot.Process()
	require.NoError(t, err)
	slot.Retire(p3, true)
	slot.Retire(p3, true) // a second retire of a forgotten process counts nothing
	starts, crashes = slot.Stats()
	assert.Equal(t, [2]int{3, 2}, [2]int{starts, crashes})
	slot.Release()

	require.NoError(t, slot.Start(), "Start starts one when idle")
	assert.True(t, slot.Running())
	require.NoError(t, slot.Close())
	assert.False(t, slot.Running())
	_, _, err = slot.Process()
	assert.ErrorIs(t, err, ErrClosed)
}

func TestSlotTurnAndFailedStart(t *testing.T) {
	boom := errors.New("handshake failed")
	slot := NewSlot(func() (*Process, error) {
		return start(t, nil, Config{}, "echo"), boom
	})
	require.True(t, slot.Acquire(context.Background()))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.False(t, slot.Acquire(ctx), "one move at a time")
	require.NoError(t, slot.Start(), "Start does nothing while a move holds the turn")
	assert.False(t, slot.Running())

	_, _, err := slot.Process()
	assert.ErrorIs(t, err, boom)
	starts, crashes := slot.Stats()
	assert.Equal(t, [2]int{1, 1}, [2]int{starts, crashes}, "a process whose start failed is killed and counted")
	slot.Release()
	require.NoError(t, slot.Close())
}
