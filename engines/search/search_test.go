package search

import (
	"bufio"
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// specRequests reads the spec's example engine requests (one per mode).
func specRequests(t *testing.T) []othello.EngineRequest {
	f, err := os.Open("../othello/testdata/spec_requests.jsonl")
	require.NoError(t, err)
	defer f.Close()
	var out []othello.EngineRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		r, err := othello.ParseEngineRequest(sc.Bytes())
		require.NoError(t, err)
		out = append(out, r)
	}
	require.NoError(t, sc.Err())
	return out
}

func TestSpecExamplesGetALegalMove(t *testing.T) {
	e := New(Options{Threads: 2, HashMB: 4})
	reqs := specRequests(t)
	modes := map[string]bool{}
	for _, r := range reqs {
		t.Run(r.GameMode, func(t *testing.T) {
			modes[r.GameMode] = true
			pos, err := r.Position()
			require.NoError(t, err)
			res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: time.Duration(r.RemainingMS) * time.Millisecond, Budget: 150 * time.Millisecond, Wire: &r})
			require.NoError(t, err)
			assert.Contains(t, r.LegalMoves, res.Move)
		})
	}
	for _, m := range othello.AllModes() {
		assert.True(t, modes[m.String()], "no spec example for %s", m)
	}
}

// randomPositions returns positions of every mode at several stages,
// passes and capped reversi colours included when the games reach them.
func randomPositions(perMode int) []othello.Position {
	var out []othello.Position
	for _, m := range othello.AllModes() {
		total := m.Squares() - m.Blocked().Count()
		for i := 0; i < perMode; i++ {
			empties := 2 + (total-14)*i/perMode
			out = append(out, randomGame(m, empties, uint64(i)*7919+uint64(m)))
		}
	}
	return out
}

func TestMoveIsLegalInEveryMode(t *testing.T) {
	e := New(Options{Threads: 2, HashMB: 4})
	n := 8
	if testing.Short() {
		n = 4
	}
	for _, pos := range randomPositions(n) {
		res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 5 * time.Second, Budget: 60 * time.Millisecond})
		require.NoError(t, err)
		require.True(t, pos.Legal().Has(res.Move), "%s: %s not legal\n%s", pos.Mode, othello.SquareName(res.Move, pos.Size()), pos)
	}
}

func TestPassWhenNoMove(t *testing.T) {
	// White to move with no white disc able to flip: a black-only corner
	// block with white elsewhere blocked off.
	pos := othello.Position{Mode: othello.Std, Turn: othello.White,
		Black: othello.Bits{Lo: 1 | 1<<1 | 1<<8}, White: othello.Bits{Lo: 1 << 63}}
	require.True(t, pos.Legal().IsZero())
	res, err := New(Options{Threads: 1, HashMB: 1}).Move(context.Background(), engines.Request{Position: pos, Budget: time.Second})
	require.NoError(t, err)
	assert.Equal(t, othello.Pass, res.Move)
}

func TestCancelledSearchReturnsLegalMove(t *testing.T) {
	e := New(Options{Threads: 2, HashMB: 4})
	for _, b := range BenchPositions() {
		// Already cancelled: no search at all.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := e.Move(ctx, engines.Request{Position: b.Position, Remaining: time.Minute, Budget: time.Minute})
		require.NoError(t, err)
		assert.True(t, b.Position.Legal().Has(res.Move), "%s: %d", b.Name, res.Move)

		// Cancelled in the middle of a long search.
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Millisecond)
		res, err = e.Move(ctx, engines.Request{Position: b.Position, Remaining: time.Hour, Budget: time.Hour})
		cancel()
		require.NoError(t, err)
		assert.True(t, b.Position.Legal().Has(res.Move), "%s: %d", b.Name, res.Move)
	}
}

func TestSearchRespectsBudget(t *testing.T) {
	e := New(Options{Threads: 2, HashMB: 4})
	pos := BenchPositions()[0].Position
	done := make(chan engines.Result, 1)
	go func() {
		res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: time.Hour, Budget: 50 * time.Millisecond})
		assert.NoError(t, err)
		done <- res
	}()
	select {
	case res := <-done:
		assert.True(t, pos.Legal().Has(res.Move))
	case <-time.After(10 * time.Second):
		t.Fatal("Move did not return long after its 50 ms budget")
	}
}

// refSolve is a plain minimax over othello.Position with the mode's scoring
// (empties to nobody): the reference for the exact solvers.
func refSolve(pos othello.Position) int {
	legal := pos.LegalMoves()
	if len(legal) == 0 {
		if pos.GameOver() {
			b, w := pos.Count()
			d := b - w
			if pos.Turn == othello.White {
				d = -d
			}
			if pos.Mode.LessWins() {
				d = -d
			}
			return d
		}
		next, _ := pos.Play(othello.Pass)
		return -refSolve(next)
	}
	best := -1000
	for _, mv := range legal {
		next, err := pos.Play(mv)
		if err != nil {
			panic(err)
		}
		best = max(best, -refSolve(next))
	}
	return best
}

func TestExactSolveMatchesReferenceInEveryMode(t *testing.T) {
	e1 := New(Options{Threads: 1, HashMB: 1})
	e2 := New(Options{Threads: 3, HashMB: 1})
	count, per, spread := 0, 12, 7
	if testing.Short() {
		per, spread = 6, 4 // the reference is slow under the race detector
	}
	for _, m := range othello.AllModes() {
		for i := 0; i < per; i++ {
			empties := 3 + i%spread
			pos := randomGame(m, empties, uint64(i)*104729+uint64(m)*31)
			want := refSolve(pos)
			for _, e := range []*Engine{e1, e2} {
				e.ClearHash()
				res, err := e.Search(context.Background(), pos, Limits{Exact: true})
				require.NoError(t, err)
				require.True(t, res.Exact)
				require.Equal(t, float64(want), res.Score, "%s %d empties\n%s", m, empties, pos)
				next, err := pos.Play(res.Move)
				require.NoError(t, err)
				require.Equal(t, want, -refSolve(next), "%s: move %s is not best\n%s", m, othello.SquareName(res.Move, pos.Size()), pos)
			}
			count++
		}
	}
	t.Logf("%d positions", count)
}

func TestReversiCapBindsInSolver(t *testing.T) {
	// Black has placed 32 discs and may not move although squares are
	// empty; white fills what it can.
	pos := randomGame(othello.Reversi, 6, 42)
	pos.Placed = othello.Placed{Black: othello.ReversiCap, White: 20}
	if pos.Turn == othello.Black {
		pos.Turn = othello.White
	}
	if pos.Legal().IsZero() {
		t.Skip("white has no move in this position")
	}
	want := refSolve(pos)
	res, err := New(Options{Threads: 1, HashMB: 1}).Search(context.Background(), pos, Limits{Exact: true})
	require.NoError(t, err)
	assert.Equal(t, float64(want), res.Score)
}

func TestConcurrentSearchesShareAPool(t *testing.T) {
	pool := NewPool(1)
	e := New(Options{Threads: 2, HashMB: 4, Pool: pool})
	positions := randomPositions(2)
	var wg sync.WaitGroup
	for _, pos := range positions[:6] {
		wg.Add(1)
		go func(pos othello.Position) {
			defer wg.Done()
			res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 10 * time.Second, Budget: 30 * time.Millisecond})
			assert.NoError(t, err)
			assert.True(t, pos.Legal().Has(res.Move))
		}(pos)
	}
	wg.Wait()
	assert.Len(t, pool.tokens, 1, "every core is back in the pool")
}

func TestSearchDoesNotStarveWhenThePoolIsBusy(t *testing.T) {
	pool := NewPool(1)
	got, err := pool.acquire(context.Background(), 1, time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, got)
	defer pool.release(got)
	// Every core is taken: the search runs on one thread all the same and
	// answers within its budget.
	e := New(Options{Threads: 2, HashMB: 1, Pool: pool})
	pos := BenchPositions()[0].Position
	res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 10 * time.Second, Budget: 100 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, pos.Legal().Has(res.Move))
	assert.Positive(t, res.Depth, "a real search ran, not the one-ply fallback")
	assert.Len(t, pool.tokens, 0, "the held core is still held")
}

func TestIdenticalSearchesRunOnce(t *testing.T) {
	var fs flights
	key := flightKey{pos: othello.New(othello.Std)}
	started, release := make(chan struct{}), make(chan struct{})
	calls := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, shared, err := fs.do(context.Background(), key, func() (outcomeStats, error) {
			calls++
			close(started)
			<-release
			return outcomeStats{outcome: outcome{move: 19, ok: true}}, nil
		})
		assert.NoError(t, err)
		assert.False(t, shared)
	}()
	<-started
	done := make(chan outcomeStats)
	go func() {
		res, shared, err := fs.do(context.Background(), key, func() (outcomeStats, error) {
			t.Error("an identical search ran twice")
			return outcomeStats{}, nil
		})
		assert.NoError(t, err)
		assert.True(t, shared)
		done <- res
	}()
	// The waiter is blocked until the first search ends.
	select {
	case <-done:
		t.Fatal("waiter returned before the search ended")
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	assert.Equal(t, 19, (<-done).move)
	wg.Wait()
	assert.Equal(t, 1, calls)
}

func TestTableRoundTrip(t *testing.T) {
	tt := newTable(1)
	for i, e := range []entry{
		{lower: -64, upper: 64, move: 19, depth: 20, kind: kindEnd},
		{lower: -30000, upper: 12345, move: -1, depth: 3, kind: kindMid},
		{lower: 7, upper: 7, move: 99, depth: 60, kind: kindMid},
	} {
		key := hash8(uint64(i)+1, 2, 3)
		tt.store(key, e)
		got, ok := tt.probe(key)
		require.True(t, ok)
		assert.Equal(t, e, got)
	}
	_, ok := tt.probe(12345)
	assert.False(t, ok)
}

func FuzzParseOBF(f *testing.F) {
	f.Add("--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;")
	f.Add("---------------------------OX------XO--------------------------- O")
	f.Add("x")
	f.Fuzz(func(t *testing.T, line string) {
		p, err := ParseOBF(line)
		if err != nil {
			return
		}
		require.True(t, p.Position.Black.And(p.Position.White).IsZero())
		for sq, s := range p.Scores {
			require.True(t, sq == othello.Pass || (sq >= 0 && sq < 64))
			require.True(t, s >= -64 && s <= 64)
		}
	})
}

// TestNameCountsThreads: the name reported to FlipSight reads right with
// one thread ("1 thread", not "1 threads").
func TestNameCountsThreads(t *testing.T) {
	assert.Equal(t, "flipbot search (1 thread)", New(Options{Threads: 1}).Name())
	assert.Equal(t, "flipbot search (4 threads)", New(Options{Threads: 4}).Name())
}
