package search

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// tightProbCut is a model that cuts as often as possible: the shallow search
// is taken to predict the deep one within a tenth of a disc.
func tightProbCut() *ProbCut {
	pc := &ProbCut{}
	for _, m := range othello.AllModes() {
		for d := probCutMinDepth; d <= 10; d++ {
			pc.Fits = append(pc.Fits, ProbCutFit{Mode: m, MinEmpties: 0, MaxEmpties: 100, Depth: d, Shallow: probCutShallow(d), A: 1, Sigma: 10, N: 1})
		}
	}
	return pc
}

func TestProbCutShallowKeepsParity(t *testing.T) {
	for d := probCutMinDepth; d <= 30; d++ {
		s := probCutShallow(d)
		assert.Less(t, s, d)
		assert.GreaterOrEqual(t, s, 1)
		assert.Equal(t, d%2, s%2, "depth %d: shallow %d", d, s)
	}
}

func TestProbCutModelExtendsTheDeepestFit(t *testing.T) {
	pc := &ProbCut{Fits: []ProbCutFit{
		{Mode: othello.Std, MinEmpties: 20, MaxEmpties: 30, Depth: 5, Shallow: 1, A: 1.1, B: 3, Sigma: 80, N: 9},
		{Mode: othello.Std, MinEmpties: 20, MaxEmpties: 30, Depth: 6, Shallow: 2, A: 1.2, B: 4, Sigma: 90, N: 9},
	}}
	m := pc.model(othello.Std)
	require.NotNil(t, m)
	c, ok := m.cell(25, 5)
	require.True(t, ok)
	assert.Equal(t, probCutCell{shallow: 1, a: 1.1, b: 3, margin: probCutT * 80}, c)
	c, ok = m.cell(25, 12)
	require.True(t, ok, "deeper than the deepest fit")
	assert.Equal(t, probCutCell{shallow: probCutShallow(12), a: 1.2, b: 4, margin: probCutT * 90}, c)
	_, ok = m.cell(25, 4)
	assert.False(t, ok)
	_, ok = m.cell(31, 6)
	assert.False(t, ok, "outside the phase")
	assert.Nil(t, pc.model(othello.Anti))
	assert.Nil(t, (&ProbCut{}).model(othello.Std))
	// A shallow value ≥ hi predicts a deep one ≥ beta by the margin, and
	// one ≤ lo a deep one ≤ alpha; both bounds are the nearest such.
	lo, hi := c.bounds(-100, -99)
	assert.GreaterOrEqual(t, c.a*float64(hi)+c.b-c.margin, -99.0)
	assert.Less(t, c.a*float64(hi-1)+c.b-c.margin, -99.0)
	assert.LessOrEqual(t, c.a*float64(lo)+c.b+c.margin, -100.0)
	assert.Greater(t, c.a*float64(lo+1)+c.b+c.margin, -100.0)
}

func TestProbCutCutsNodes(t *testing.T) {
	for _, b := range BenchPositions() {
		if b.Endgame {
			continue
		}
		t.Run(b.Name, func(t *testing.T) {
			off := New(Options{Threads: 1, HashMB: 4, ProbCut: &ProbCut{}})
			on := New(Options{Threads: 1, HashMB: 4, ProbCut: tightProbCut()})
			rOff, err := off.Search(context.Background(), b.Position, Limits{Depth: 6})
			require.NoError(t, err)
			rOn, err := on.Search(context.Background(), b.Position, Limits{Depth: 6})
			require.NoError(t, err)
			assert.Less(t, rOn.Nodes, rOff.Nodes)
			assert.True(t, b.Position.Legal().Has(rOn.Move))
		})
	}
}

func TestProbCutNeverTouchesAFullDepthSearch(t *testing.T) {
	// A midgame search as deep as the empties is exact: Multi-ProbCut must
	// not cut anywhere in it, however tight its model.
	on := New(Options{Threads: 1, HashMB: 4, ProbCut: tightProbCut()})
	per := 2
	if testing.Short() {
		per = 1 // slow under the race detector
	}
	for _, m := range othello.AllModes() {
		for i := range per {
			pos := randomGame(m, 13+i, uint64(i)*7919+uint64(m))
			n := pos.Empties().Count()
			on.ClearHash()
			exact, err := on.Search(context.Background(), pos, Limits{Exact: true})
			require.NoError(t, err)
			on.ClearHash()
			mid, err := on.Search(context.Background(), pos, Limits{Depth: n})
			require.NoError(t, err)
			require.True(t, mid.Exact, "%s", m)
			assert.Equal(t, exact.Score, mid.Score, "%s %d empties\n%s", m, n, pos)
		}
	}
}

func TestDefaultProbCutIsUsable(t *testing.T) {
	for name, pc := range map[string]*ProbCut{"baseline": baselineProbCut(), "pattern": patternProbCut()} {
		for _, m := range othello.AllModes() {
			assert.NotNil(t, pc.model(m), "%s %s", name, m)
		}
		for _, f := range pc.Fits {
			assert.Greater(t, f.Depth, f.Shallow, name)
			assert.GreaterOrEqual(t, f.MaxEmpties, f.MinEmpties, name)
			assert.Positive(t, f.N, name)
		}
	}
}

// withEnd adds the selective endgame's fits to the pattern evaluation's
// midgame table, as New does.
func withEnd(pc *ProbCut) *ProbCut {
	pc.End = patternEndCut()
	return pc
}

func TestDefaultProbCutFollowsTheEvaluation(t *testing.T) {
	trained, err := eval.Embedded()
	require.NoError(t, err)
	grand, ok := trained.Eval10(othello.Grand).(*eval.Pattern)
	require.True(t, ok)
	mixed := eval.BaselineSet()
	mixed.Replace(grand) // trained grand, baseline elsewhere
	for _, tc := range []struct {
		name string
		opts Options
		want func(othello.Mode) *ProbCut
	}{
		{"baseline", Options{}, func(othello.Mode) *ProbCut { return baselineProbCut() }},
		{"pattern", Options{Eval8: trained.Eval8, Eval10: trained.Eval10}, func(othello.Mode) *ProbCut { return withEnd(patternProbCut()) }},
		{"mixed", Options{Eval8: mixed.Eval8, Eval10: mixed.Eval10}, func(m othello.Mode) *ProbCut {
			if m == othello.Grand {
				return withEnd(patternProbCut())
			}
			return baselineProbCut()
		}},
		{"off", Options{Eval8: trained.Eval8, Eval10: trained.Eval10, ProbCut: &ProbCut{}}, func(othello.Mode) *ProbCut { return &ProbCut{} }},
	} {
		e := New(Options{HashMB: 1, Eval8: tc.opts.Eval8, Eval10: tc.opts.Eval10, ProbCut: tc.opts.ProbCut})
		for _, m := range othello.AllModes() {
			assert.Equal(t, tc.want(m).model(m), e.mpc[m], "%s %s", tc.name, m)
		}
	}
}
