package egaroucid

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/sizing"
)

// testShare is the memory share of the fakes below: well above the fake's
// own resident size (a Go test binary), well below its hog.
const testShare = 96 * sizing.MiB

func linuxOnly(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("SKIPPED: process memory is read from /proc (Linux only)")
	}
}

func TestOverShareLimit(t *testing.T) {
	assert.Equal(t, uint64(120*sizing.MiB), OverShareLimit(testShare))
	assert.Greater(t, uint64(egaroucidtest.HogMiB)<<20, OverShareLimit(testShare))
}

func TestRefusesABuildOverItsShare(t *testing.T) {
	linuxOnly(t)
	tests := []struct {
		name, fake string
		ahead      bool // started ahead, never asked: the start-up watch refuses it
	}{
		{"answering at once (the first answer's check, or the watch)", "hog", false},
		{"while starting, asked", "hogslow", false},
		{"while starting, started ahead", "hogslow", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.NoLeak(t)
			var log enginetest.Log
			e := newFakeWith(t, Options{MemoryShare: testShare, RefuseOverShare: true, Logger: log.Logger(), Startup: 40 * time.Second}, tc.fake)
			pos := othello.New(othello.Std)
			if tc.ahead {
				require.NoError(t, e.Start())
				require.Eventually(t, func() bool { return e.Refused() != nil }, 20*time.Second, 20*time.Millisecond)
			}
			_, err := e.Move(context.Background(), request(pos, 20*time.Second))
			require.ErrorIs(t, err, ErrOverShare)
			assert.Contains(t, err.Error(), "make egaroucid", "the error says how to fix it")
			assert.False(t, e.slot.Running(), "the process is killed")
			assert.ErrorIs(t, e.Refused(), ErrOverShare)

			// From now on: refused at once, nothing started again.
			_, err = e.Move(context.Background(), request(pos, 20*time.Second))
			require.ErrorIs(t, err, ErrOverShare)
			require.ErrorIs(t, e.Start(), ErrOverShare)
			starts, crashes := e.Stats()
			assert.Equal(t, [2]int{1, 0}, [2]int{starts, crashes}, "one start, and its kill is no crash")
			assert.Equal(t, 1, countLines(log.String(), "egaroucid refused"), "noted once (the caller reports the error)")
			require.NoError(t, e.Close())
		})
	}
}

func TestWarm(t *testing.T) {
	linuxOnly(t)
	enginetest.NoLeak(t)
	ok := newFakeWith(t, Options{MemoryShare: testShare, RefuseOverShare: true}, "loading")
	require.NoError(t, ok.Warm(context.Background()), "ready, inside its share")
	require.NoError(t, ok.Warm(context.Background()), "already ready")
	res, err := ok.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(othello.New(othello.Std)), res.Move)
	starts, _ := ok.Stats()
	assert.Equal(t, 1, starts, "the move used the warmed process")
	require.NoError(t, ok.Close())

	// A move while Warm waits takes its turn and waits for the same start-up.
	both := newFakeWith(t, Options{}, "loading")
	warmed := make(chan error, 1)
	go func() { warmed <- both.Warm(context.Background()) }()
	require.Eventually(t, both.slot.Running, 5*time.Second, 5*time.Millisecond)
	res, err = both.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(othello.New(othello.Std)), res.Move)
	require.NoError(t, <-warmed)
	starts, _ = both.Stats()
	assert.Equal(t, 1, starts)
	require.NoError(t, both.Close())

	hog := newFakeWith(t, Options{MemoryShare: testShare, RefuseOverShare: true}, "hogslow")
	require.ErrorIs(t, hog.Warm(context.Background()), ErrOverShare)
	assert.False(t, hog.slot.Running())
	require.NoError(t, hog.Close())

	deaf := newFakeWith(t, Options{}, "deaf")
	ctx, cancel := context.WithTimeout(context.Background(), 600*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, deaf.Warm(ctx), context.DeadlineExceeded)
	require.NoError(t, deaf.Close())
}

func TestOverShareOnlyReportedWithoutRefuse(t *testing.T) {
	linuxOnly(t)
	var log enginetest.Log
	e := newFakeWith(t, Options{MemoryShare: testShare, Logger: log.Logger()}, "hog")
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 10*time.Second))
	require.NoError(t, err, "flipbot on a PC plays on")
	assert.Equal(t, first(pos), res.Move)
	assert.True(t, log.Contains("EGAROUCID TAKES MORE MEMORY THAN ITS SHARE"), log.String())
	assert.True(t, log.Contains("sed lines"), "the fix is in the warning")
	assert.NoError(t, e.Refused())
}

func TestWithinItsShareIsPlayed(t *testing.T) {
	linuxOnly(t)
	var log enginetest.Log
	e := newFakeWith(t, Options{MemoryShare: testShare, RefuseOverShare: true, Logger: log.Logger()})
	for _, pos := range enginetest.Positions(t, 3) {
		res, err := e.Move(context.Background(), request(pos, 10*time.Second))
		require.NoError(t, err)
		assert.Equal(t, first(pos), res.Move)
	}
	assert.False(t, log.Contains("more memory"), log.String())
	p, _, err := e.slot.Process()
	require.NoError(t, err)
	m, err := p.Memory()
	require.NoError(t, err)
	assert.Less(t, m.Peak, uint64(testShare), "the fake itself is inside the share")
}

// TestRealStockBuildRefused starts the stock Egaroucid 7.8 that
// FLIPBOT_EGAROUCID names with the share of a 1 GB Pi playing one match
// (the stock build writes 1.33 GiB at start): it is refused while it
// starts, and killed before it has taken all of it.
func TestRealStockBuildRefused(t *testing.T) {
	linuxOnly(t)
	bin := egaroucidtest.Real(t)
	if testing.Short() {
		t.Skip("starts the real Egaroucid (10–20 s); skipped with -short")
	}
	pi3 := sizing.Machine{Memory: 906 * sizing.MiB, Cores: 4}
	_, p := sizing.Pairs(pi3, 4, sizing.Egaroucid)
	var log enginetest.Log
	e, err := New(Options{Path: bin, Threads: 1, Hash: p.Table, MemoryShare: p.Share, RefuseOverShare: true,
		Logger: log.Logger(), Startup: time.Minute})
	require.NoError(t, err)
	defer e.Close()
	// The first move waits for the start-up at most its budget: it ends
	// with the refusal, or first with engines.ErrNotReady while the
	// start-up watch goes on.
	started := time.Now()
	_, err = e.Move(context.Background(), request(othello.New(othello.Std), 2*time.Minute))
	if !errors.Is(err, ErrOverShare) {
		require.ErrorIs(t, err, engines.ErrNotReady)
	}
	require.Eventually(t, func() bool { return e.Refused() != nil }, time.Minute, 10*time.Millisecond,
		"%s must name a stock build (a low-memory one fits)", egaroucidtest.RealEnv)
	t.Logf("refused %v after the start: %v", time.Since(started).Round(time.Millisecond), e.Refused())
	_, err = e.Move(context.Background(), request(othello.New(othello.Std), 2*time.Minute))
	require.ErrorIs(t, err, ErrOverShare)
	assert.False(t, e.slot.Running())
}

func countLines(s, sub string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			n++
		}
	}
	return n
}
