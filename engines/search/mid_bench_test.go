package search

import (
	"context"
	"math/rand/v2"
	"testing"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// benchMidgame searches 8 midgame positions of mode (random games, 30
// plies in) to a fixed depth with the embedded pattern evaluation and
// reports nodes/s: where a 10×10 search spends its time is the question
// (run with -cpuprofile).
func benchMidgame(b *testing.B, mode othello.Mode, depth int) {
	ev, err := eval.Embedded()
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, uint64(mode)))
	var positions []othello.Position
	for len(positions) < 8 {
		pos := othello.New(mode)
		for ply := 0; ply < 30 && !pos.GameOver(); ply++ {
			legal := pos.LegalMoves()
			mv := othello.Pass
			if len(legal) > 0 {
				mv = legal[r.IntN(len(legal))]
			}
			pos, _ = pos.Play(mv)
		}
		if !pos.GameOver() && !pos.Legal().IsZero() {
			positions = append(positions, pos)
		}
	}
	e := New(Options{Threads: 1, HashMB: 16, Eval8: ev.Eval8, Eval10: ev.Eval10})
	var nodes uint64
	for b.Loop() {
		for _, pos := range positions {
			e.ClearHash()
			res, err := e.Search(context.Background(), pos, Limits{Depth: depth})
			if err != nil {
				b.Fatal(err)
			}
			nodes += res.Nodes
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkMidgameGrand searches grand midgames to depth 8.
func BenchmarkMidgameGrand(b *testing.B) { benchMidgame(b, othello.Grand, 8) }

// BenchmarkMidgameStd searches std midgames to depth 10.
func BenchmarkMidgameStd(b *testing.B) { benchMidgame(b, othello.Std, 10) }
