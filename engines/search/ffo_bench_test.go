package search

import (
	"context"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines/eval"
)

// benchFFO solves FFO positions from lo to hi (1-based numbers within the
// file whose first position is first) with the given threads and reports
// the total time and nodes/s. It uses the trained pattern evaluation (the
// default of flipengine and flipbot), which orders the top of the tree.
func benchFFO(b *testing.B, file string, first, lo, hi, threads int) {
	positions := loadOBF(b, file)
	ev, err := eval.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	e := New(Options{Threads: threads, Eval8: ev.Eval8, Eval10: ev.Eval10})
	for b.Loop() {
		var nodes uint64
		var total time.Duration
		for i := lo; i <= hi; i++ {
			e.ClearHash()
			r, err := e.Search(context.Background(), positions[i-first].Position, Limits{Exact: true, EmptiesToWinner: true})
			if err != nil {
				b.Fatal(err)
			}
			if want, _ := positions[i-first].Best(); int(r.Score) != want {
				b.Fatalf("#%d: score %v, want %d", i, r.Score, want)
			}
			nodes += r.Nodes
			total += r.Elapsed
			b.Logf("#%d %v nodes %d %.1f M/s", i, r.Elapsed.Round(time.Millisecond), r.Nodes, float64(r.Nodes)/r.Elapsed.Seconds()/1e6)
		}
		b.ReportMetric(float64(nodes)/total.Seconds(), "nodes/s")
		b.ReportMetric(total.Seconds(), "s")
	}
	b.ReportMetric(0, "ns/op")
}

// BenchmarkFFO20to39 solves FFO #20–39 with one thread.
func BenchmarkFFO20to39(b *testing.B) { benchFFO(b, "fforum-20-39.obf", 20, 20, 39, 1) }

// BenchmarkFFO40to49 solves FFO #40–49 with one thread.
func BenchmarkFFO40to49(b *testing.B) { benchFFO(b, "fforum-40-59.obf", 40, 40, 49, 1) }

// BenchmarkFFO40to49Threads2 solves FFO #40–49 with two threads.
func BenchmarkFFO40to49Threads2(b *testing.B) { benchFFO(b, "fforum-40-59.obf", 40, 40, 49, 2) }

// BenchmarkFFO40to59 solves FFO #40–59 with one thread (minutes).
func BenchmarkFFO40to59(b *testing.B) { benchFFO(b, "fforum-40-59.obf", 40, 40, 59, 1) }
