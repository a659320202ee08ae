package search

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestQuickMoveSolvesTheLastEmpties: with a few empties the quick move is
// an exact solve, and so a best move by the reference minimax, in every
// mode; the one-ply evaluation it replaces is not (the test counts the
// positions where one ply would have erred, so that it shows a search).
func TestQuickMoveSolvesTheLastEmpties(t *testing.T) {
	e := New(Options{Threads: 1, HashMB: 1})
	onePlyWrong := 0
	for _, m := range othello.AllModes() {
		for i := range 10 {
			empties := 3 + i%5
			pos := randomGame(m, empties, uint64(i)*7727+uint64(m)*131)
			if len(pos.LegalMoves()) < 2 {
				continue
			}
			want := refSolve(pos)
			res, err := e.QuickMove(context.Background(), pos, 50*time.Millisecond)
			require.NoError(t, err)
			next, err := pos.Play(res.Move)
			require.NoError(t, err, "%s: %s not legal\n%s", m, othello.SquareName(res.Move, pos.Size()), pos)
			require.Equal(t, want, -refSolve(next), "%s %d empties: %s is not best\n%s", m, empties, othello.SquareName(res.Move, pos.Size()), pos)
			assert.True(t, res.Exact, "%s %d empties: solved", m, empties)
			one, err := pos.Play(e.quickMove(pos))
			require.NoError(t, err)
			if -refSolve(one) < want {
				onePlyWrong++
			}
		}
	}
	t.Logf("one ply would have lost discs in %d positions", onePlyWrong)
	assert.Positive(t, onePlyWrong, "the positions tell a search from one ply")
}

// TestQuickMoveAnswersAtOnce: a legal move in every mode for thinks from
// none (one ply) to MinThink, with the pool's every core taken and the
// same position searched by a long Move meanwhile (a fallback does not
// wait behind the search that failed), and when already cancelled.
func TestQuickMoveAnswersAtOnce(t *testing.T) {
	pool := NewPool(1)
	got, err := pool.acquire(context.Background(), 1, time.Second)
	require.NoError(t, err)
	defer pool.release(got)
	e := New(Options{Threads: 1, HashMB: 4, Pool: pool})
	positions := randomPositions(4)

	// A search of the first position that holds its flight for a while.
	long, stopLong := context.WithCancel(context.Background())
	defer stopLong()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = e.Search(long, positions[0], Limits{})
	}()

	for _, pos := range positions {
		for _, think := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 50 * time.Millisecond} {
			start := time.Now()
			res, err := e.QuickMove(context.Background(), pos, think)
			require.NoError(t, err)
			require.True(t, pos.Legal().Has(res.Move), "%s think %v: %s\n%s", pos.Mode, think, othello.SquareName(res.Move, pos.Size()), pos)
			if think >= 5*time.Millisecond && len(pos.LegalMoves()) > 1 {
				assert.Positive(t, res.Depth, "%s think %v: a search ran", pos.Mode, think)
			}
			// Not a timing assertion: a search that ignored its think would
			// run for minutes here.
			require.Less(t, time.Since(start), 10*time.Second)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := e.QuickMove(ctx, pos, 50*time.Millisecond)
		require.NoError(t, err)
		require.True(t, pos.Legal().Has(res.Move), "cancelled: %s", othello.SquareName(res.Move, pos.Size()))
	}
	stopLong()
	<-done

	// White has no move (TestPassWhenNoMove's position).
	pass := othello.Position{Mode: othello.Std, Turn: othello.White,
		Black: othello.Bits{Lo: 1 | 1<<1 | 1<<8}, White: othello.Bits{Lo: 1 << 63}}
	res, err := e.QuickMove(context.Background(), pass, 10*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, othello.Pass, res.Move, "no move: a pass")
}
