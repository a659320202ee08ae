package jsonline

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// The spec's --engine contract (エンジンへの要求のフィールド): budget_ms is
// min(--max-think-seconds, remaining − 0.75 s), remaining_ms the clock when
// the request is made, and every own turn reaches the engine.

// loggedRequests returns the requests the "log" fake received.
func loggedRequests(t *testing.T, path string) []othello.EngineRequest {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []othello.EngineRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		r, err := othello.ParseEngineRequest(sc.Bytes())
		require.NoError(t, err)
		out = append(out, r)
	}
	return out
}

// wireRequest is a request made through the API: with its wire form, a
// clock read at At and the per-move cap.
func wireRequest(pos othello.Position, remaining, cap, plan time.Duration, leg int) engines.Request {
	w := othello.NewEngineRequest(pos)
	w.MatchID, w.Leg = 5, leg
	return engines.Request{Position: pos, Remaining: remaining, At: time.Now(), Cap: cap, Budget: plan, Wire: &w}
}

func TestBudgetMSIsTheSpecsNotThePlans(t *testing.T) {
	tests := []struct {
		name               string
		remaining, cap     time.Duration
		wantBudget, within int64
	}{
		{"cap binds (the spec's example: 10000 at 60 s)", 60 * time.Second, 10 * time.Second, 10000, 0},
		{"clock binds", 5 * time.Second, 10 * time.Second, 4250, 50},
		{"no cap", 20 * time.Second, 0, 19250, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "requests")
			e := newFake(t, nil, "log", path, "0")
			// The plan's share (80 ms) is flipbot's own business: it never
			// reaches the wire, and the wait is not cut to it.
			_, err := e.Move(context.Background(), wireRequest(othello.New(othello.Std), tt.remaining, tt.cap, 80*time.Millisecond, 0))
			require.NoError(t, err)
			reqs := loggedRequests(t, path)
			require.Len(t, reqs, 1)
			assert.InDelta(t, tt.wantBudget, reqs[0].BudgetMS, float64(tt.within))
			assert.InDelta(t, tt.remaining.Milliseconds(), reqs[0].RemainingMS, 50)
		})
	}
}

func TestWaitsBudgetMSNotThePlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests")
	e := newFake(t, nil, "log", path, "400")
	res, err := e.Move(context.Background(), wireRequest(othello.New(othello.Std), 60*time.Second, 2*time.Second, 50*time.Millisecond, 0))
	require.NoError(t, err, "an answer within budget_ms is taken, however short the plan")
	assert.True(t, othello.New(othello.Std).Legal().Has(res.Move))
}

// TestTheClockIsReadWhenTheLineIsWritten: both legs ask at once and the
// second waits for the first's answer (about 500 ms) before its line is
// written: its remaining_ms has gone on while it waited, whether the
// request says when its clock was read (At) or not. A request without At
// was read when Move was called (engines.Request's At); written as read at
// the call, it told the engine the whole wait was still its own while the
// connector's deadline ran from the turn's start (issue 38: a leg that
// waited through the other's answer was planned past its real clock and
// lost on time).
func TestTheClockIsReadWhenTheLineIsWritten(t *testing.T) {
	for _, withAt := range []bool{true, false} {
		t.Run(fmt.Sprintf("At set %v", withAt), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "requests")
			e := newFake(t, nil, "log", path, "500")
			require.NoError(t, e.Start())
			pos := othello.New(othello.Std)
			var wg sync.WaitGroup
			for leg := range 2 {
				wg.Go(func() {
					req := wireRequest(pos, 30*time.Second, 10*time.Second, 0, leg)
					if !withAt {
						req.At = time.Time{}
					}
					_, err := e.Move(context.Background(), req)
					assert.NoError(t, err)
				})
			}
			wg.Wait()
			reqs := loggedRequests(t, path)
			require.Len(t, reqs, 2)
			assert.InDelta(t, 30000, reqs[0].RemainingMS, 200, "the first is written at once")
			assert.Less(t, reqs[1].RemainingMS, int64(30000-400), "the second's clock went on while it waited for the engine")
			assert.Equal(t, int64(10000), reqs[1].BudgetMS, "the cap still binds")
		})
	}
}

func TestForcedTurnsReachTheEngine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests")
	e := newFake(t, nil, "log", path, "0")
	// White to move with no legal move (black a1, white b1; black has c1).
	pass := othello.Position{Mode: othello.Std, Turn: othello.White, Black: othello.Bit(0), White: othello.Bit(1)}
	// Black to move with exactly one legal move (c1).
	one := othello.Position{Mode: othello.Std, Turn: othello.Black, Black: othello.Bit(0), White: othello.Bit(1)}
	require.Equal(t, 1, one.Legal().Count())
	for _, pos := range []othello.Position{pass, one} {
		res, err := e.Move(context.Background(), wireRequest(pos, 60*time.Second, 10*time.Second, 0, 0))
		require.NoError(t, err)
		want := othello.Pass
		if l := pos.LegalMoves(); len(l) == 1 {
			want = l[0]
		}
		assert.Equal(t, want, res.Move)
	}
	reqs := loggedRequests(t, path)
	require.Len(t, reqs, 2, "the engine saw both positions")
	assert.Empty(t, reqs[0].LegalMoves, "an empty legal_moves: the engine answers -1")
	assert.Equal(t, []int{2}, reqs[1].LegalMoves)
}

func TestForcedAnswerIsTheForcedMoveWhateverTheEngineSays(t *testing.T) {
	e := newFake(t, nil, "outside")
	pass := othello.Position{Mode: othello.Std, Turn: othello.White, Black: othello.Bit(0), White: othello.Bit(1)}
	res, err := e.Move(context.Background(), wireRequest(pass, 60*time.Second, 10*time.Second, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, othello.Pass, res.Move)
	starts, _ := e.Stats()
	assert.Equal(t, 1, starts, "an odd answer to a forced turn does not cost the engine")
}

func TestNoTimeLeftAsksNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "requests")
	e := newFake(t, nil, "log", path, "0")
	_, err := e.Move(context.Background(), wireRequest(othello.New(othello.Std), 700*time.Millisecond, 10*time.Second, 0, 0))
	require.Error(t, err, "remaining − 0.75 s is below zero: budget_ms would be 0")
	starts, _ := e.Stats()
	assert.Zero(t, starts)
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing was written")
}

// TestJunkInsteadOfAnAnswerIsSaid: an engine that prints lines that are
// not an answer until its budget_ms is over fails with an error that says
// what it printed, not only that the time was up.
func TestJunkInsteadOfAnAnswerIsSaid(t *testing.T) {
	e := newFake(t, nil, "junk")
	_, err := e.Move(context.Background(), wireRequest(othello.New(othello.Std), 10*time.Second, 300*time.Millisecond, 0, 0))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `it printed a line that is not an answer, the last "hello, I am not JSON"`)
}
