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
// Without the ponder's yield (job.yield) the woken goroutine waits for Go's
// forced preemption of the search: 19.6 ms on average and 39.5 ms at worst
// on the build VM, against 0.3 and 1.8 ms with it
// (docs/measurements/2026-12-05-solver-order-and-ponder-yield.md).
//
//	go test -run XXX -bench WakeWhilePondering -benchtime 200x ./engines/search
func BenchmarkWakeWhilePondering(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	pool := NewPool(1)
	e := New(Options{Threads: 1, HashMB: 16, Pool: pool})
	root := randomGame(othello.Std, 36, 3)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Ponder(ctx, engines.PonderRequest{Position: root, Expected: root.LegalMoves()[:1]}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	for pool.State().Pondering == 0 {
		time.Sleep(time.Millisecond)
	}
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
