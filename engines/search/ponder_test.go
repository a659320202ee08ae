package search

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// ponderRoot returns a std position with the opponent to move (as after the
// bot's own move), far from the end, and a reply whose position has a
// choice, and another such reply.
func ponderRoot(t *testing.T, seed uint64) (root othello.Position, reply, other int) {
	t.Helper()
	for ; ; seed++ {
		root = randomGame(othello.Std, 40, seed)
		reply, other = -1, -1
		for _, mv := range root.LegalMoves() {
			next, err := root.Play(mv)
			require.NoError(t, err)
			if next.Legal().Count() < 2 {
				continue
			}
			if reply < 0 {
				reply = mv
			} else if other < 0 {
				other = mv
			}
		}
		if other >= 0 {
			return root, reply, other
		}
	}
}

// pondering starts Ponder in the background and returns a function that
// cancels it and waits for it to return.
func pondering(t *testing.T, e *Engine, req engines.PonderRequest) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, e.Ponder(ctx, req))
	}()
	return func() {
		cancel()
		wg.Wait()
	}
}

func play(t *testing.T, pos othello.Position, mv int) othello.Position {
	t.Helper()
	next, err := pos.Play(mv)
	require.NoError(t, err)
	return next
}

// A move asked while ponder searches hold every core of the pool gets every
// core at once: the ponder is stopped and its cores are handed over before
// the move's search starts (the pool's state and the search's hook say so,
// not a timing).
func TestMoveDuringPonderGetsEveryCore(t *testing.T) {
	pool := NewPool(2)
	e := New(Options{Threads: 2, HashMB: 4, Pool: pool})
	cores := make(chan int, 1)
	e.onSearch = func(n int) { cores <- n }
	root, reply, _ := ponderRoot(t, 1)
	stop := pondering(t, e, engines.PonderRequest{Position: root, Expected: []int{reply}})
	defer stop()
	require.Eventually(t, func() bool { return pool.State().Pondering == 2 }, 30*time.Second, time.Millisecond,
		"the ponder takes both idle cores")

	// A move in another position (the other leg's turn): the ponder goes on
	// afterwards.
	pos := randomGame(othello.Std, 36, 7)
	// A budget the race detector on a loaded machine cannot exhaust before
	// the search starts: the assertion is on the cores, not on the time.
	res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: time.Minute, Budget: 2 * time.Second})
	require.NoError(t, err)
	assert.True(t, pos.Legal().Has(res.Move))
	select {
	case n := <-cores:
		assert.Equal(t, 2, n, "the move's search took both cores from the ponder")
	default:
		t.Fatal("the move fell back without a search")
	}
	require.Eventually(t, func() bool { return pool.State().Pondering == 2 }, 30*time.Second, time.Millisecond,
		"the ponder takes the cores back after the move")
	stop()
	assert.Equal(t, PoolState{Free: 2}, pool.State(), "every core is back in the pool")
}

// While a move's search waits for its cores, no ponder search takes one.
func TestPonderWaitsWhileAMoveWaits(t *testing.T) {
	pool := NewPool(1)
	got, err := pool.acquire(context.Background(), 1, time.Second)
	require.NoError(t, err)
	pool.mu.Lock()
	pool.moving++ // a second move waiting for a core
	pool.mu.Unlock()
	pool.release(got)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = pool.acquirePonder(ctx, 1, func() {})
	require.ErrorIs(t, err, context.DeadlineExceeded, "the free core is the waiting move's")

	pool.mu.Lock()
	pool.moving--
	pool.signal()
	pool.mu.Unlock()
	h, err := pool.acquirePonder(context.Background(), 2, func() {})
	require.NoError(t, err)
	assert.Equal(t, 1, h.n, "a ponder takes the idle cores, not more")
	pool.releasePonder(h)
	assert.Equal(t, PoolState{Free: 1}, pool.State())
}

// A move's search that runs without a core (every core was taken by
// another move) keeps ponders off the core that frees up until it ends.
func TestPonderWaitsForAMoveOutsideTheBudget(t *testing.T) {
	pool := NewPool(1)
	first, err := pool.acquire(context.Background(), 1, time.Second)
	require.NoError(t, err)
	require.Equal(t, 1, first)
	second, err := pool.acquire(context.Background(), 1, time.Millisecond)
	require.NoError(t, err)
	require.Zero(t, second, "every core is taken: the second move searches outside the budget")
	pool.release(first)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = pool.acquirePonder(ctx, 1, func() {})
	require.ErrorIs(t, err, context.DeadlineExceeded, "the freed core stays idle while the second move runs")

	pool.release(second)
	h, err := pool.acquirePonder(context.Background(), 1, func() {})
	require.NoError(t, err)
	pool.releasePonder(h)
	assert.Equal(t, PoolState{Free: 1}, pool.State())
}

// The ponders of two legs share one idle core: both search.
func TestPondersShareTheIdleCores(t *testing.T) {
	pool := NewPool(1)
	e := New(Options{Threads: 1, HashMB: 4, Pool: pool})
	rootA, replyA, _ := ponderRoot(t, 1)
	rootB, replyB, _ := ponderRoot(t, 100)
	require.NotEqual(t, rootA, rootB)
	stopA := pondering(t, e, engines.PonderRequest{Position: rootA, Expected: []int{replyA}})
	defer stopA()
	stopB := pondering(t, e, engines.PonderRequest{Position: rootB, Expected: []int{replyB}, Leg: 1})
	defer stopB()
	searched := func(root othello.Position) bool {
		e.ponders.mu.Lock()
		defer e.ponders.mu.Unlock()
		for _, p := range e.ponders.kept {
			if p.root == sameKey(root) && p.nodes > 0 {
				return true
			}
		}
		return false
	}
	require.Eventually(t, func() bool { return searched(rootA) && searched(rootB) }, 30*time.Second, time.Millisecond,
		"both legs' ponders had turns on the one core")
	assert.LessOrEqual(t, pool.State().Pondering, 1, "never more cores than the pool holds")
}

// A move in the pondered position counts a hit; a move after another reply
// counts a miss; a move elsewhere counts neither.
func TestPonderHitsAndMisses(t *testing.T) {
	e := New(Options{Threads: 1, HashMB: 4})
	root, reply, other := ponderRoot(t, 1)
	req := engines.Request{Remaining: 10 * time.Second, Budget: 20 * time.Millisecond}

	stop := pondering(t, e, engines.PonderRequest{Position: root, Expected: []int{reply}})
	require.Eventually(t, func() bool { return e.Stats().Ponders == 1 }, 30*time.Second, time.Millisecond)
	stop()
	req.Position = play(t, root, reply)
	_, err := e.Move(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), e.Stats().PonderHits)

	stop = pondering(t, e, engines.PonderRequest{Position: root, Expected: []int{reply}})
	require.Eventually(t, func() bool { return e.Stats().Ponders == 2 }, 30*time.Second, time.Millisecond)
	stop()
	req.Position = randomGame(othello.Std, 30, 5)
	_, err = e.Move(context.Background(), req)
	require.NoError(t, err)
	req.Position = play(t, root, other)
	_, err = e.Move(context.Background(), req)
	require.NoError(t, err)
	s := e.Stats()
	assert.Equal(t, uint64(1), s.PonderHits)
	assert.Equal(t, uint64(1), s.PonderMisses)
	assert.Positive(t, s.PonderNodes)

	// The API's placed counts outside reversi do not matter.
	stop = pondering(t, e, engines.PonderRequest{Position: root, Expected: []int{reply}})
	require.Eventually(t, func() bool { return e.Stats().Ponders == 3 }, 30*time.Second, time.Millisecond)
	stop()
	req.Position = play(t, root, reply)
	req.Position.Placed = othello.Placed{}
	_, err = e.Move(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), e.Stats().PonderHits)
}

// Without an expected reply the engine guesses one by a shallow search and
// ponders the position after it.
func TestPonderGuessesTheReply(t *testing.T) {
	e := New(Options{Threads: 1, HashMB: 4})
	root, _, _ := ponderRoot(t, 3)
	stop := pondering(t, e, engines.PonderRequest{Position: root})
	require.Eventually(t, func() bool { return e.Stats().Ponders == 1 }, 30*time.Second, time.Millisecond)
	stop()
	e.ponders.mu.Lock()
	p := e.ponders.kept[0]
	e.ponders.mu.Unlock()
	assert.True(t, follows(root, p.target), "the pondered position is the root after one of its replies")
}

func TestPonderReturnsAtOnceWithNothingToThinkAbout(t *testing.T) {
	e := New(Options{Threads: 1, HashMB: 1})
	over := othello.New(othello.Std)
	over.Black, over.White = over.Black.Or(over.White), othello.Bits{}
	require.True(t, over.GameOver())
	require.NoError(t, e.Ponder(context.Background(), engines.PonderRequest{Position: over}))
	assert.Zero(t, e.Stats().Ponders)
}

// engineGoroutines returns the stacks of the goroutines running this
// package's code, the tests' own apart.
func engineGoroutines() []string {
	buf := make([]byte, 1<<20)
	var out []string
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "engines/search.") && !strings.Contains(g, "engines/search.Test") {
			out = append(out, g)
		}
	}
	return out
}

// Ponders that end leave no goroutine behind and every core in the pool.
func TestPonderLeavesNothingRunning(t *testing.T) {
	// An earlier test's move timer may have fired a moment ago and still
	// be on its way out; what counts is that nothing stays.
	require.Eventually(t, func() bool { return len(engineGoroutines()) == 0 }, 10*time.Second, time.Millisecond,
		"goroutines left before the test: %v", engineGoroutines())
	pool := NewPool(2)
	e := New(Options{Threads: 2, HashMB: 4, Pool: pool})
	var stops []func()
	for seed := range uint64(3) {
		root, reply, _ := ponderRoot(t, 10*seed+1)
		stops = append(stops, pondering(t, e, engines.PonderRequest{Position: root, Expected: []int{reply}, Leg: int(seed)}))
	}
	pos := randomGame(othello.Std, 36, 7)
	_, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 10 * time.Second, Budget: 30 * time.Millisecond})
	require.NoError(t, err)
	for _, stop := range stops {
		stop()
	}
	assert.Equal(t, PoolState{Free: 2}, pool.State())
	assert.Zero(t, e.ponders.queue.waiting())
	require.Eventually(t, func() bool { return len(engineGoroutines()) == 0 }, 10*time.Second, time.Millisecond,
		"no goroutine outlives its ponder: %v", engineGoroutines())
}
