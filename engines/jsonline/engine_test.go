package jsonline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

func newFake(t *testing.T, log *enginetest.Log, args ...string) *Engine {
	t.Helper()
	opts := Options{Command: fakeCommand(t, args...)}
	if log != nil {
		opts.Logger = log.Logger()
	}
	e, err := New(opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() })
	return e
}

var request = enginetest.Request

func TestNewRejectsBadCommands(t *testing.T) {
	for _, cmd := range []string{"", "   ", `engine "unterminated`} {
		_, err := New(Options{Command: cmd})
		assert.Error(t, err, "command %q", cmd)
	}
}

func TestAnswers(t *testing.T) {
	positions := enginetest.Positions(t, 6)
	tests := []struct {
		name  string
		args  []string
		want  func(othello.Position) int
		wantE bool
	}{
		{"number", []string{"ok"}, first, false},
		{"coordinate", []string{"coord"}, last, false},
		{"garbage skipped", []string{"garbage"}, first, false},
		{"stderr", []string{"stderr"}, first, false},
		{"slow start", []string{"slowstart", "200"}, first, false},
		{"exits after each answer", []string{"once"}, first, false},
		{"occupied square", []string{"illegal"}, nil, true},
		{"outside the board", []string{"outside"}, nil, true},
		{"pass with legal moves", []string{"pass"}, nil, true},
		{"unreadable move", []string{"badmove"}, nil, true},
		{"crash", []string{"crash"}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.NoLeak(t)
			var log enginetest.Log
			e := newFake(t, &log, tc.args...)
			for i, pos := range positions {
				res, err := e.Move(context.Background(), request(pos, 5*time.Second))
				if tc.wantE {
					require.Error(t, err, "position %d", i)
					continue
				}
				require.NoError(t, err, "position %d", i)
				assert.Equal(t, tc.want(pos), res.Move, "position %d", i)
			}
			require.NoError(t, e.Close())
		})
	}
}

func first(pos othello.Position) int { return pos.LegalMoves()[0] }

func last(pos othello.Position) int {
	l := pos.LegalMoves()
	return l[len(l)-1]
}

func TestStderrLoggedAndRestartsCounted(t *testing.T) {
	var log enginetest.Log
	e := newFake(t, &log, "stderr")
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.NoError(t, err)
	require.NoError(t, e.Close())
	assert.True(t, log.Contains("fake engine diagnostic"), log.String())

	once := newFake(t, nil, "once")
	for _, pos := range enginetest.Positions(t, 3) {
		_, err := once.Move(context.Background(), request(pos, 5*time.Second))
		require.NoError(t, err)
	}
	starts, _ := once.Stats()
	assert.Equal(t, 3, starts, "an engine that exits after each answer is started for each move")

	kept := newFake(t, nil, "ok")
	for _, pos := range enginetest.Positions(t, 3) {
		_, err := kept.Move(context.Background(), request(pos, 5*time.Second))
		require.NoError(t, err)
	}
	starts, crashes := kept.Stats()
	assert.Equal(t, 1, starts, "a well-behaved engine is kept running")
	assert.Zero(t, crashes)
}

func TestCrashIsRetriedOnceThenReported(t *testing.T) {
	e := newFake(t, nil, "crash")
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited")
	starts, crashes := e.Stats()
	assert.Equal(t, 2, starts)
	assert.Equal(t, 2, crashes)
}

func TestHangTimesOutAndKills(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "hang")
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), 200*time.Millisecond))
	require.Error(t, err)
	assert.True(t, errors.Is(err, adapt.ErrTimeout), "%v", err)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts)
	assert.False(t, e.slot.Running(), "the hung process is gone")
	require.NoError(t, e.Close())
}

func TestCancelStopsWaiting(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	done := enginetest.MoveInBackground(t, ctx, e) // the request is with the engine
	cancel()
	err := <-done
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	require.NoError(t, e.Close())
}

func TestLateAnswerIsNotTakenForTheNextMove(t *testing.T) {
	e := newFake(t, nil, "slowfirst")
	positions := enginetest.Positions(t, 2) // the first is the starting position
	_, err := e.Move(context.Background(), request(positions[0], 300*time.Millisecond))
	require.ErrorIs(t, err, adapt.ErrTimeout)
	res, err := e.Move(context.Background(), request(positions[1], 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(positions[1]), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 2, starts, "the late engine was replaced")
}

func TestWireRequestIsSentAsIs(t *testing.T) {
	e := newFake(t, nil, "wire")
	pos := othello.New(othello.Std)
	wire := othello.NewEngineRequest(pos)
	l := wire.LegalMoves
	wire.LegalMoves = append([]int{l[len(l)-1]}, l[:len(l)-1]...)
	wire.MatchID = 77
	req := request(pos, 5*time.Second)
	req.Wire = &wire
	res, err := e.Move(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, l[len(l)-1], res.Move)
}

func TestForcedMovesNeedNoEngine(t *testing.T) {
	// A command that cannot start: forced moves must not need it.
	e, err := New(Options{Command: "/nonexistent/engine"})
	require.NoError(t, err)
	defer e.Close()
	// Black a1, white b1: white has no move, black has c1: white passes.
	pos := othello.Position{Mode: othello.Std, Turn: othello.White, Black: othello.Bit(0), White: othello.Bit(1)}
	res, err := e.Move(context.Background(), request(pos, time.Second))
	require.NoError(t, err)
	assert.Equal(t, othello.Pass, res.Move)
	_, err = e.Move(context.Background(), request(othello.New(othello.Std), time.Second))
	require.Error(t, err, "a missing program is an error")
	over := othello.Position{Mode: othello.Std, Turn: othello.Black, Black: othello.Bit(0)}
	_, err = e.Move(context.Background(), request(over, time.Second))
	require.ErrorIs(t, err, adapt.ErrGameOver)
}

func TestConcurrentLegsShareTheProcess(t *testing.T) {
	enginetest.NoLeak(t)
	e := newFake(t, nil, "ok")
	positions := enginetest.Positions(t, 8)
	var wg sync.WaitGroup
	errs := make([]error, len(positions))
	moves := make([]int, len(positions))
	for i, pos := range positions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := e.Move(context.Background(), request(pos, 10*time.Second))
			errs[i], moves[i] = err, res.Move
		}()
	}
	wg.Wait()
	for i, pos := range positions {
		require.NoError(t, errs[i])
		assert.Equal(t, first(pos), moves[i])
	}
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts)
	require.NoError(t, e.Close())
}

func TestCloseKillsTheProcessGroup(t *testing.T) {
	enginetest.NoLeak(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	e := newFake(t, nil, "child", pidFile)
	done := make(chan error, 1)
	go func() {
		_, err := e.Move(context.Background(), request(othello.New(othello.Std), time.Minute))
		done <- err
	}()
	var pid int
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(pidFile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(string(b))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	require.True(t, alive(pid))
	require.NoError(t, e.Close(), "closing during a move")
	require.Error(t, <-done)
	require.Eventually(t, func() bool { return !alive(pid) }, 5*time.Second, 10*time.Millisecond,
		"the engine's child %d outlived it", pid)
}

func TestMoveAfterClose(t *testing.T) {
	e := newFake(t, nil, "ok")
	require.NoError(t, e.Close())
	_, err := e.Move(context.Background(), request(othello.New(othello.Std), time.Second))
	require.ErrorIs(t, err, ErrClosed)
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestDefaultName(t *testing.T) {
	for cmd, want := range map[string]string{
		"python3 -u tools/my_adapter.py --x": "my_adapter.py",
		"/opt/engines/bin/myengine -l 5":     "myengine",
		"bash":                               "bash",
	} {
		e, err := New(Options{Command: cmd})
		require.NoError(t, err)
		assert.Equal(t, want, e.Name(), cmd)
	}
	e, err := New(Options{Command: "x", Name: "Mine"})
	require.NoError(t, err)
	assert.Equal(t, "Mine", e.Name())
}

func TestNoBudgetOrCancelledAsksNothing(t *testing.T) {
	e := newFake(t, nil, "ok")
	pos := othello.New(othello.Std)
	_, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 500 * time.Millisecond, Budget: -250 * time.Millisecond})
	require.ErrorIs(t, err, adapt.ErrTimeout)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Move(ctx, request(pos, time.Second))
	require.ErrorIs(t, err, context.Canceled)
	starts, _ := e.Stats()
	assert.Zero(t, starts, "no process for a move that cannot be made")
	// Off the API (no clock, no budget): the default budget applies.
	res, err := e.Move(context.Background(), engines.Request{Position: pos})
	require.NoError(t, err)
	assert.Equal(t, first(pos), res.Move)
}

func TestStartAhead(t *testing.T) {
	e := newFake(t, nil, "ok")
	require.NoError(t, e.Start())
	require.NoError(t, e.Start())
	res, err := e.Move(context.Background(), request(othello.New(othello.Std), 5*time.Second))
	require.NoError(t, err)
	assert.Equal(t, first(othello.New(othello.Std)), res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts)
	bad, err := New(Options{Command: "/nonexistent/engine"})
	require.NoError(t, err)
	require.Error(t, bad.Start())
}
