package search

import (
	"context"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// benchMidgame searches 8 midgame positions of mode (random games, 30
// plies in, by randomGame) to a fixed depth with the embedded pattern evaluation and
// reports nodes/s: where a 10×10 search spends its time is the question
// (run with -cpuprofile). nodes/op, the nodes of the 8 searches, is the
// figure that compares two versions of the search's pruning (one
// thread: the same every run). nodes/s is wall time and counts the table's
// clearing before each position; cpu-nodes/s counts the process's CPU time
// during the searches alone (where the OS reports it), which is the figure
// to compare on a loaded machine: waiting for a core is not counted.
func benchMidgame(b *testing.B, mode othello.Mode, depth int) {
	ev, err := eval.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	var positions []othello.Position
	empties := mode.Squares() - mode.Blocked().Count() - 34 // 30 plies after the start
	for i := range uint64(8) {
		positions = append(positions, randomGame(mode, empties, 3+i*7919))
	}
	e := New(Options{Threads: 1, HashMB: 16, Eval8: ev.Eval8, Eval10: ev.Eval10})
	var nodes uint64
	var cpu time.Duration
	for b.Loop() {
		for _, pos := range positions {
			e.ClearHash()
			c0 := processCPU()
			res, err := e.Search(context.Background(), pos, Limits{Depth: depth})
			if err != nil {
				b.Fatal(err)
			}
			cpu += processCPU() - c0
			nodes += res.Nodes
		}
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
	if cpu > 0 {
		b.ReportMetric(float64(nodes)/cpu.Seconds(), "cpu-nodes/s")
	}
}

// BenchmarkMidgameGrand searches grand midgames to depth 8.
func BenchmarkMidgameGrand(b *testing.B) { benchMidgame(b, othello.Grand, 8) }

// BenchmarkMidgameStd searches std midgames to depth 10.
func BenchmarkMidgameStd(b *testing.B) { benchMidgame(b, othello.Std, 10) }
