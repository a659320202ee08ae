package search

import (
	"context"
	"runtime"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// BenchmarkWakeWhilePondering measures, with one P (a bot given one core,
// as on a loaded Pi or under taskset), how late a goroutine woken by a timer
// runs while a ponder search holds the P: the delay the bot's stream reader
// and move goroutines see before they can cancel the ponder. It reports the
// mean and the worst lateness of a 1 ms sleep (wake-ms, worst-wake-ms).
// Without the search threads' yield (thread.poll) the woken goroutine
// waits for Go's forced preemption of the search: 19.6 ms on average and
// 39.5 ms at worst on the build VM, against 0.3 and 1.8 ms with it
// (docs/measurements/2026-12-05-solver-order-and-ponder-yield.md).
//
//	go test -run XXX -bench WakeWhilePondering -benchtime 200x ./engines/search
func BenchmarkWakeWhilePondering(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	pool := NewPool(1)
	e := New(Options{Threads: 1, HashMB: 16, Pool: pool})
	root := randomGame(othello.Std, 36, 3)
	defer holdTheCore(b, func(ctx context.Context) error {
		return e.Ponder(ctx, engines.PonderRequest{Position: root, Expected: root.LegalMoves()[:1]})
	}, func() bool { return pool.State().Pondering > 0 })()
	const nap = time.Millisecond
	var total, worst time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		time.Sleep(nap)
		late := time.Since(t0) - nap
		total += late
		worst = max(worst, late)
	}
	b.StopTimer()
	if pool.State().Pondering == 0 {
		b.Fatal("the ponder ended before the measurement did")
	}
	b.ReportMetric(float64(total)/float64(b.N)/1e6, "wake-ms")
	b.ReportMetric(float64(worst)/1e6, "worst-wake-ms")
}

// BenchmarkStopLatency measures, with one P (a bot given one core), how
// late a move's search answers after its hard limit: the bot waits for the
// built-in engine only returnMargin longer than that, then plays a
// fallback. The move (Engine.Move, a long clock and a budget that makes
// the hard limit 100 ms) is searched alone on the P, or beside another
// search (the bot's two legs searching at once: the second waits at most a
// tenth of its time for the pool, then searches on one thread anyway).
// late-ms and worst-late-ms are the mean and the worst time from the hard
// limit to the answer (0 for a search that ended before it); over-margin
// counts the answers that came more than returnMargin after it, which the
// bot would have replaced by a fallback.
//
//	go test -run XXX -bench StopLatency -benchtime 40x ./engines/search
func BenchmarkStopLatency(b *testing.B) {
	for _, beside := range []bool{false, true} {
		name := "alone"
		if beside {
			name = "beside-a-search"
		}
		b.Run(name, func(b *testing.B) { benchStopLatency(b, beside) })
	}
}

func benchStopLatency(b *testing.B, beside bool) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	pool := NewPool(1)
	e := New(Options{Threads: 1, HashMB: 16, Pool: pool})
	if beside {
		defer holdTheCore(b, func(ctx context.Context) error {
			_, err := e.Search(ctx, randomGame(othello.Std, 36, 3), Limits{})
			return err
		}, func() bool { return pool.State().Free == 0 })()
	}
	const hard = 100 * time.Millisecond
	var total, worst time.Duration
	over := 0
	b.ResetTimer()
	for i := range b.N {
		req := engines.Request{Position: randomGame(othello.Std, 34, uint64(10+i)), Remaining: time.Minute, Budget: hard + returnMargin}
		t0 := time.Now()
		if _, err := e.Move(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		late := max(0, time.Since(t0)-hard)
		total += late
		worst = max(worst, late)
		if late > returnMargin {
			over++
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(total)/float64(b.N)/1e6, "late-ms")
	b.ReportMetric(float64(worst)/1e6, "worst-late-ms")
	b.ReportMetric(float64(over), "over-margin")
}

// holdTheCore runs search in the background until it holds what holding
// reports, and returns the function that cancels it and waits for its end.
func holdTheCore(b *testing.B, search func(context.Context) error, holding func() bool) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- search(ctx) }()
	for !holding() {
		time.Sleep(time.Millisecond)
	}
	return func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}
