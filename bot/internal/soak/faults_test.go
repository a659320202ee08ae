package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena/arenatest"
)

// state returns the state letter of process pid ("" when gone).
func state(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	_, st, _ := parseStat(string(b))
	return st
}

func TestInjectorFiresEachFault(t *testing.T) {
	ctx := context.Background()
	front := arenatest.NewFront(http.NotFoundHandler(), arenatest.Options{})
	ep, err := arenatest.Listen(ctx, "127.0.0.1:0", front)
	require.NoError(t, err)
	defer ep.Stop()
	c := &counters{}
	in := injector{front: front, ep: ep, c: c, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		hang: 500 * time.Millisecond, down: 50 * time.Millisecond}

	require.NoError(t, in.fire(ctx, faultCut))
	require.NoError(t, in.fire(ctx, fault503))
	require.NoError(t, in.fire(ctx, faultLose))
	p := front.Pending()
	assert.Equal(t, []arenatest.Answer{{Status: 503}, {Status: 503}, {Status: 503}}, p.Requests)
	assert.Equal(t, 1, p.LoseMoveAnswers)

	addr := ep.Addr()
	require.NoError(t, in.fire(ctx, faultRestart))
	assert.Equal(t, addr, ep.Addr(), "back at its address")
	resp, err := http.Get(ep.URL())
	require.NoError(t, err, "serving again")
	resp.Body.Close()

	// No engine: the engine faults do nothing.
	require.NoError(t, in.fire(ctx, faultCrash))
	require.NoError(t, in.fire(ctx, faultHang))
	assert.Zero(t, c.crashes.Load()+c.hangs.Load())

	sleeper := exec.Command("sleep", "30")
	require.NoError(t, sleeper.Start())
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	require.NoError(t, in.fire(ctx, faultHang))
	assert.Eventually(t, func() bool { return state(sleeper.Process.Pid) == "T" }, 5*time.Second, 5*time.Millisecond, "stopped")
	assert.Eventually(t, func() bool { return state(sleeper.Process.Pid) == "S" }, 5*time.Second, 5*time.Millisecond, "continued")
	require.NoError(t, in.fire(ctx, faultCrash))
	err = sleeper.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal())

	for name, n := range map[string]int64{"cuts": c.cuts.Load(), "503": c.f503.Load(), "lost": c.lost.Load(),
		"restarts": c.restarts.Load(), "hangs": c.hangs.Load(), "crashes": c.crashes.Load()} {
		assert.Equal(t, int64(1), n, name)
	}
	assert.Equal(t, int64(6), c.faults())
}
