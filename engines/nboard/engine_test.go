package nboard

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

func newFake(t *testing.T, opts Options, args ...string) *Engine {
	t.Helper()
	opts.Command = fakeCommand(t, args...)
	e, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var request = enginetest.Request

func first(pos othello.Position) int { return pos.LegalMoves()[0] }

func TestAnswers(t *testing.T) {
	positions := enginetest.Positions(t, 6)
	tests := []struct {
		name  string
		opts  Options
		args  []string
		wantE bool
	}{
		{"upper case with slashes", Options{}, []string{"ok"}, false},
		{"edax style, version 1", Options{Version: 1, Depth: 5}, []string{"edax"}, false},
		{"noise skipped", Options{}, []string{"garbage"}, false},
		{"slow start", Options{}, []string{"slowstart", "200"}, false},
		{"hint answers", Options{Hint: true}, []string{"ok"}, false},
		{"hint answers, edax style", Options{Hint: true, Version: 1}, []string{"edax"}, false},
		{"occupied square", Options{}, []string{"illegal"}, true},
		{"pass with legal moves", Options{}, []string{"pass"}, true},
		{"unreadable move", Options{}, []string{"badmove"}, true},
		{"crash on go", Options{}, []string{"crash"}, true},
		{"edax refuses version 2", Options{Version: 2}, []string{"edax"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.NoLeak(t)
			e := newFake(t, tc.opts, tc.args...)
			for i, pos := range positions {
				res, err := e.Move(context.Background(), request(pos, 5*time.Second))
				if tc.wantE {
					require.Error(t, err, "position %d", i)
					continue
				}
				require.NoError(t, err, "position %d", i)
				assert.Equal(t, first(pos), res.Move, "position %d", i)
			}
			require.NoError(t, e.Close())
		})
	}
}

func TestEdaxStyleDetails(t *testing.T) {
	e := newFake(t, Options{Version: 1, Depth: 7}, "edax")
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
	assert.Equal(t, uint64(12345), res.Nodes)
	assert.InDelta(t, 1.0, res.Score, 1e-9)
	assert.Equal(t, "Fake7", e.Name(), "the name from set myname")
	starts, crashes := e.Stats()
	assert.Equal(t, 1, starts)
	assert.Zero(t, crashes)
}

func TestStdOnly(t *testing.T) {
	e := newFake(t, Options{}, "ok")
	for _, m := range othello.AllModes() {
		assert.Equal(t, m == othello.Std, e.Supports(m), m.String())
	}
	_, err := e.Move(context.Background(), request(othello.New(othello.Grand), time.Second))
	require.ErrorIs(t, err, ErrMode)
}

func TestSlowSearchTimesOutThenRecovers(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, Options{}, "slowstop")
	positions := enginetest.Positions(t, 2)
	// On a loaded machine the fresh process may not answer its first ping
	// within the 300 ms budget: that move is "not ready" and the engine is
	// kept loading. The case under test is the search that overruns, so
	// the move is asked again until the engine has started.
	var err error
	for range 20 {
		_, err = e.Move(context.Background(), request(positions[0], 300*time.Millisecond))
		if !errors.Is(err, engines.ErrNotReady) {
			break
		}
	}
	require.ErrorIs(t, err, adapt.ErrTimeout)
	// The stopped search's late answer (for positions[0]) must be skipped.
	e.opts.Think = func(engines.Request) time.Duration { return 50 * time.Millisecond }
	res, err := e.Move(context.Background(), request(positions[1], 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(positions[1]), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts, "a search stopped by ping needs no restart")
	require.NoError(t, e.Close())
}

func TestStoppedBeforeTheBudgetWithAMove(t *testing.T) {
	// No think time: the engine searches by its depth (here: 10 s), and is
	// stopped by ping just before the budget; its best move is taken.
	e := newFake(t, Options{}, "slowgo")
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 700*time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
}

func TestThinkTimeStopsTheSearchWithAMove(t *testing.T) {
	e := newFake(t, Options{Think: func(engines.Request) time.Duration { return 50 * time.Millisecond }}, "slowgo")
	for _, pos := range enginetest.Positions(t, 3) {
		res, err := e.Move(context.Background(), request(pos, 5*time.Second))
		require.NoError(t, err)
		assert.Equal(t, first(pos), res.Move)
	}
}

func TestDeafEngineIsReplaced(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, Options{SyncTimeout: 200 * time.Millisecond}, "deafsecond")
	positions := enginetest.Positions(t, 3)
	res, err := e.Move(context.Background(), request(positions[0], 10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(positions[0]), res.Move)
	// The second search never ends and the engine reads nothing more.
	_, err = e.Move(context.Background(), request(positions[1], 300*time.Millisecond))
	require.ErrorIs(t, err, adapt.ErrTimeout)
	// Its missing pong gets it replaced, and the new one answers.
	res, err = e.Move(context.Background(), request(positions[2], 10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(positions[2]), res.Move)
	starts, crashes := e.Stats()
	assert.Equal(t, 2, starts, "the deaf engine was killed and started again")
	assert.Equal(t, 1, crashes)
	require.NoError(t, e.Close())
}

func TestCrashDuringSearchIsRetried(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "crashed")
	e := newFake(t, Options{}, "crashonce", marker)
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
	starts, crashes := e.Stats()
	assert.Equal(t, 2, starts)
	assert.Equal(t, 1, crashes)
}

func TestCancel(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, Options{}, "slowgo")
	ctx, cancel := context.WithCancel(context.Background())
	done := enginetest.MoveInBackground(t, ctx, e)
	cancel()
	err := <-done
	require.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.NoError(t, e.Close())
}

func TestNewChecksOptions(t *testing.T) {
	_, err := New(Options{Command: ""})
	require.Error(t, err)
	_, err = New(Options{Command: "x", Depth: 61})
	require.Error(t, err)
	e, err := New(Options{Path: "/opt/edax dir/lEdax", Args: []string{"-nboard"}})
	require.NoError(t, err)
	assert.Equal(t, "lEdax", e.Name())
}

func TestStopPingIsRepeated(t *testing.T) {
	e := newFake(t, Options{Think: func(engines.Request) time.Duration { return 50 * time.Millisecond }}, "lateping")
	for _, pos := range enginetest.Positions(t, 2) {
		// Without a second ping the search would run into the budget.
		res, err := e.Move(context.Background(), request(pos, 3*time.Second))
		require.NoError(t, err)
		assert.Equal(t, first(pos), res.Move)
	}
}

func TestCloseDuringMove(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, Options{}, "slowgo")
	done := enginetest.MoveInBackground(t, context.Background(), e)
	require.NoError(t, e.Close())
	require.Error(t, <-done)
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), time.Second))
	require.ErrorIs(t, err, ErrClosed)
}

func TestStartAhead(t *testing.T) {
	e := newFake(t, Options{Version: 1}, "edax")
	require.NoError(t, e.Start())
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts)
}

func TestSlowLoadAfterStartIsWaitedFor(t *testing.T) {
	// Started ahead, the engine is still loading (0.4 s, more than the
	// SyncTimeout) at the first move: it must be waited for, not replaced.
	e := newFake(t, Options{SyncTimeout: 100 * time.Millisecond}, "slowstart", "400")
	require.NoError(t, e.Start())
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), request(pos, 10*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts)
}

func TestScoreDepthAndNodes(t *testing.T) {
	pos := othello.New(othello.Std)
	goStyle := newFake(t, Options{Version: 1}, "edax")
	res, err := goStyle.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.InDelta(t, 1.0, res.Score, 1e-9, "=== f5 1.00 0.3")
	assert.Equal(t, uint64(12345), res.Nodes, "nodestats")
	assert.Zero(t, res.Depth, "go's answer carries no depth")

	hint := newFake(t, Options{Version: 1, Hint: true}, "edax")
	res, err = hint.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
	assert.InDelta(t, 1.0, res.Score, 1e-9)
	assert.Equal(t, 13, res.Depth, "search f5 1 0 13")
	assert.Equal(t, uint64(12345), res.Nodes)
	// The next move's ping skips what is left of the last answer.
	res, err = hint.Move(context.Background(), request(pos, 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, 13, res.Depth)
}

func TestStartupAllowance(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, Options{Startup: 200 * time.Millisecond}, "slowstart", "1500")
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), time.Minute))
	require.ErrorIs(t, err, errSyncTimeout, "a start-up is given its allowance, not the minute's budget")
	assert.Contains(t, err.Error(), "not ready")
	// Still loading, not hung: kept, and the next moves wait for it again.
	var res engines.Result
	require.Eventually(t, func() bool {
		res, err = e.Move(context.Background(), request(othello.New(othello.Std), time.Minute))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, first(othello.New(othello.Std)), res.Move)
	starts, crashes := e.Stats()
	assert.Equal(t, [2]int{1, 0}, [2]int{starts, crashes}, "the loading process was kept")
	require.NoError(t, e.Close())
}

func TestAnswerWaitIsThinkPlusAllowance(t *testing.T) {
	enginetest.NoLeak(t)
	// The engine reads no ping for 10 s; the think time is 100 ms: the
	// adapter gives up at 100 ms + AnswerAllowance, not at the budget.
	e := newFake(t, Options{Think: func(engines.Request) time.Duration { return 100 * time.Millisecond }}, "stubborn")
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), time.Minute))
	require.ErrorIs(t, err, adapt.ErrTimeout)
	assert.Contains(t, err.Error(), "past the planned think time")
	require.NoError(t, e.Close())
}

// TestSlowStartIsKeptAcrossMoves: an engine that takes longer to load than
// a move's budget, started ahead: each move made while it loads stops
// waiting shortly before its budget ends, in time for the caller's
// fallback, with an error wrapping engines.ErrNotReady, and leaves it
// loading; the first move after it is ready is answered by the same
// process.
func TestSlowStartIsKeptAcrossMoves(t *testing.T) {
	enginetest.NoLeak(t)
	think := func(req engines.Request) time.Duration { return adapt.ThinkTime(req, DefaultStopMargin) }
	e := newFake(t, Options{Think: think}, "slowstart", "5000")
	require.NoError(t, e.Start())
	req := engines.Request{Position: othello.New(othello.Std), Remaining: 60 * time.Second, Budget: 4 * time.Second}
	enginetest.SlowStartKept(t, e, req, req.Budget-adapt.ReadyMargin, e.slot.Running, first(req.Position))
}

// TestStartupWaitIsTakenFromTheThinkTime: a move that waited for the
// start-up plans its think time on what is left of the clock and the
// budget.
func TestStartupWaitIsTakenFromTheThinkTime(t *testing.T) {
	enginetest.NoLeak(t)
	var asked []engines.Request
	var mu sync.Mutex
	think := func(req engines.Request) time.Duration {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req)
		return 2 * time.Second
	}
	e := newFake(t, Options{Think: think}, "slowstart", "1000")
	require.NoError(t, e.Start())
	req := engines.Request{Position: othello.New(othello.Std), Remaining: 60 * time.Second, Budget: 4 * time.Second}
	res, err := e.Move(context.Background(), req)
	require.NoError(t, err, "ready after 1 s of the 2 s wait")
	assert.Equal(t, first(req.Position), res.Move)
	mu.Lock()
	defer mu.Unlock()
	last := asked[len(asked)-1]
	assert.LessOrEqual(t, last.Remaining, req.Remaining-900*time.Millisecond, "the search's think time is planned on the clock left")
	assert.LessOrEqual(t, last.Budget, req.Budget-900*time.Millisecond)
}
