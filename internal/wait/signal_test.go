//go:build unix

package wait

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOnStopSignalsStepsInOrder sends the process SIGTERM, SIGINT, then
// SIGTERM past the last step: each signal takes the next step, the extra
// one none (and does not kill the test), and after stop no step runs.
func TestOnStopSignalsStepsInOrder(t *testing.T) {
	got := make(chan string, 4)
	step := func(name string) func(os.Signal) {
		return func(s os.Signal) { got <- name + " " + s.String() }
	}
	stop := OnStopSignals(step("first"), step("second"))
	next := func() string {
		select {
		case s := <-got:
			return s
		case <-time.After(5 * time.Second):
			return "no step"
		}
	}
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	assert.Equal(t, "first terminated", next())
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGINT))
	assert.Equal(t, "second interrupt", next())
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	time.Sleep(50 * time.Millisecond)
	stop()
	stop()
	assert.Empty(t, got, "no step past the last")

	stop = OnStopSignals(step("again"))
	stop()
	keep := OnStopSignals() // holds the signals so that the next one does not end the test
	defer keep()
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	time.Sleep(50 * time.Millisecond)
	assert.Empty(t, got, "no step after stop")
}
