package search

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// featureSum10 is the trained 10×10 evaluation computed the slow way, as a
// fit defines it: the weights of the features eval.Layout.Features lists
// (each pattern index read square by square), clamped like eval.Pattern.
type featureSum10 struct {
	layout *eval.Layout
	w      []int16
	limit  int
	buf    []int32
}

func newFeatureSum10(t *testing.T, mode othello.Mode) *featureSum10 {
	data, err := os.ReadFile(filepath.Join("..", "eval", "weights", eval.WeightsFile(mode)))
	require.NoError(t, err)
	var w eval.Weights
	require.NoError(t, w.UnmarshalBinary(data))
	l := eval.LayoutFor(mode)
	playable := mode.Squares() - mode.Blocked().Count()
	return &featureSum10{layout: l, w: w.W, limit: (playable - 1) * eval.Disc, buf: make([]int32, l.NumFeatures())}
}

func (f *featureSum10) Score10(p, o othello.Bits) int {
	ph := f.layout.Features(p, o, 1<<20, 1<<20, false, f.buf)
	s := 0
	for _, x := range f.buf {
		s += int(f.w[ph*f.layout.PerPhase()+int(x)])
	}
	return max(-f.limit, min(f.limit, s))
}

func TestGrandSearchScoresAsTheReferenceEvaluation(t *testing.T) {
	// A fixed-depth search with the embedded pattern evaluation finds the
	// same move, score and node count as one with the slow reference
	// evaluation (same Multi-ProbCut table): the fast evaluation changes
	// the speed, not one value the search sees. One thread, so that the
	// node counts are deterministic.
	set, err := eval.Embedded()
	require.NoError(t, err)
	depth, perMode := 6, 3
	if testing.Short() {
		depth, perMode = 4, 2
	}
	for _, mode := range []othello.Mode{othello.Grand, othello.Octagon} {
		ref := newFeatureSum10(t, mode)
		fast := New(Options{Threads: 1, HashMB: 8, Eval10: set.Eval10, ProbCut: patternProbCut()})
		slow := New(Options{Threads: 1, HashMB: 8, Eval10: func(othello.Mode) eval.Evaluator10 { return ref }, ProbCut: patternProbCut()})
		for i := range perMode {
			empties := mode.Squares() - mode.Blocked().Count() - 4 - 10*(i+1)
			pos := randomGame(mode, empties, 101+uint64(i)*31)
			fast.ClearHash()
			slow.ClearHash()
			want, err := slow.Search(context.Background(), pos, Limits{Depth: depth})
			require.NoError(t, err)
			got, err := fast.Search(context.Background(), pos, Limits{Depth: depth})
			require.NoError(t, err)
			require.Equal(t, depth, got.Depth, "%s position %d", mode, i)
			require.Equal(t, want.Move, got.Move, "%s position %d\n%v", mode, i, pos)
			require.Equal(t, want.Score, got.Score, "%s position %d\n%v", mode, i, pos)
			require.Equal(t, want.Nodes, got.Nodes, "%s position %d\n%v", mode, i, pos)
			require.Equal(t, want.PV, got.PV, "%s position %d\n%v", mode, i, pos)
		}
	}
}
