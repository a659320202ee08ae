package eval

import (
	"math/rand/v2"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// benchPositions returns positions of random games of mode, for the
// evaluation benchmarks.
func benchPositions(mode othello.Mode) (ps, os []othello.Bits) {
	r := rand.New(rand.NewPCG(11, uint64(mode)))
	for len(ps) < 1024 {
		for _, pos := range randomGame(mode, r) {
			ps = append(ps, pos.Discs(pos.Turn))
			os = append(os, pos.Discs(pos.Turn.Opponent()))
		}
	}
	return ps[:1024], os[:1024]
}

func benchEval8(b *testing.B, ev Evaluator8) {
	ps, os := benchPositions(othello.Std)
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		k := i & 1023
		s += ev.Score8(ps[k].Lo, os[k].Lo, 99, 99)
	}
	_ = s
}

func benchEval10(b *testing.B, mode othello.Mode, ev Evaluator10) {
	ps, os := benchPositions(mode)
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		k := i & 1023
		s += ev.Score10(ps[k], os[k])
	}
	_ = s
}

func BenchmarkBaseline8(b *testing.B) { benchEval8(b, Baseline8(othello.Std)) }

func BenchmarkPattern8(b *testing.B) {
	e, err := NewPattern(randomWeights(b, othello.Std, 1))
	if err != nil {
		b.Fatal(err)
	}
	benchEval8(b, e)
}

// BenchmarkPattern8Layouts measures the cost of the 8×8 mobility features:
// the two 8×8 layouts of std (generation 1's, without them, and the one new
// fits use, with them) evaluate the same 1,024 positions in alternation,
// block by block, and each one's time per evaluation is reported
// (ns/eval-nomob, ns/eval-mob) with their ratio.
func BenchmarkPattern8Layouts(b *testing.B) {
	var evs [2]*Pattern
	for i, l := range Layouts(othello.Std) {
		e, err := NewPattern(randomWeightsOf(b, l, othello.Std, 1))
		if err != nil {
			b.Fatal(err)
		}
		evs[1-i] = e // evs[0]: without, evs[1]: with the mobility features
	}
	ps, os := benchPositions(othello.Std)
	var spent [2]time.Duration
	s := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k, e := range evs {
			t0 := time.Now()
			for j := range ps {
				s += e.Score8(ps[j].Lo, os[j].Lo, 99, 99)
			}
			spent[k] += time.Since(t0)
		}
	}
	_ = s
	n := float64(b.N) * float64(len(ps))
	b.ReportMetric(float64(spent[0].Nanoseconds())/n, "ns/eval-nomob")
	b.ReportMetric(float64(spent[1].Nanoseconds())/n, "ns/eval-mob")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "mob/nomob")
}

func BenchmarkBaseline10(b *testing.B) { benchEval10(b, othello.Grand, Baseline10(othello.Grand)) }

func BenchmarkPattern10(b *testing.B) {
	e, err := NewPattern(randomWeights(b, othello.Grand, 1))
	if err != nil {
		b.Fatal(err)
	}
	benchEval10(b, othello.Grand, e)
}

// BenchmarkPattern10Local evaluates positions of one phase only, as a
// search does (neighbouring nodes share most table entries).
func BenchmarkPattern10Local(b *testing.B) {
	e, err := NewPattern(randomWeights(b, othello.Grand, 1))
	if err != nil {
		b.Fatal(err)
	}
	ps, os := benchPositions(othello.Grand)
	l := e.layout
	var lp, lo []othello.Bits
	for i := range ps {
		if l.Phase(l.playable-ps[i].Or(os[i]).Count()) == 3 {
			lp, lo = append(lp, ps[i]), append(lo, os[i])
		}
	}
	lp, lo = lp[:16], lo[:16]
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		s += e.Score10(lp[i&15], lo[i&15])
	}
	_ = s
}
