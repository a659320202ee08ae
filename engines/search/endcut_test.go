package search

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

func TestSelectiveEntryKeepsItsLevel(t *testing.T) {
	tt := newTable(1)
	e := entry{lower: 4, upper: 4, move: 19, depth: 22, kind: kindEndSel, level: 2}
	key := hash8(7, 8, 9)
	tt.store(key, e)
	got, ok := tt.probe(key)
	require.True(t, ok)
	assert.Equal(t, e, got)
}

func TestSelectiveBoundsAreTrustedOnlyAtTheirLevelOrBelow(t *testing.T) {
	sel2 := entry{lower: 10, upper: 10, move: 3, depth: 20, kind: kindEndSel, level: 2}
	exact := entry{lower: 10, upper: 10, move: 3, depth: 20, kind: kindEnd}
	for _, tc := range []struct {
		name  string
		e     entry
		level int
		cut   bool
	}{
		{"exact pass ignores a selective entry", sel2, 0, false},
		{"a more selective pass trusts it", sel2, 1, true},
		{"the same level trusts it", sel2, 2, true},
		{"a less selective pass ignores it", sel2, 3, false},
		{"the exact pass trusts an exact entry", exact, 0, true},
		{"a selective pass trusts an exact entry", exact, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.cut, tc.e.trusted(tc.level))
			_, _, v, cut := tc.e.endWindow(tc.level, 20, -1, 0)
			assert.Equal(t, tc.cut, cut)
			if cut {
				assert.Equal(t, 10, v)
			}
		})
	}
	// The midgame never takes a selective bound.
	_, _, _, cut := sel2.window(100, 20, -100, 0)
	assert.False(t, cut)
}

func TestSelectiveStoreKeepsTheExactEntry(t *testing.T) {
	tt := newTable(1)
	key := hash8(1, 2, 3)
	exact := entry{lower: 6, upper: 64, move: 11, depth: 20, kind: kindEnd}
	tt.store(key, exact)
	tt.store(key, entry{lower: 8, upper: 8, move: 12, depth: 20, kind: kindEndSel, level: 1})
	tt.store(key, entry{lower: 0, upper: 0, move: 13, depth: 9, kind: kindMid})
	got, ok := tt.probe(key)
	require.True(t, ok)
	assert.Equal(t, exact, got)
	// The exact pass replaces a selective entry.
	key2 := hash8(4, 5, 6)
	tt.store(key2, entry{lower: 8, upper: 8, move: 12, depth: 20, kind: kindEndSel, level: 1})
	tt.store(key2, exact)
	got, ok = tt.probe(key2)
	require.True(t, ok)
	assert.Equal(t, exact, got)
}

func TestEndCutModelTakesTheNearestFit(t *testing.T) {
	fits := []EndCutFit{
		{Mode: othello.Std, Empties: 14, Shallow: endCutShallow(14), A: 1, B: 1, Sigma: 3, N: 9},
		{Mode: othello.Std, Empties: 20, Shallow: endCutShallow(20), A: 1, B: 2, Sigma: 4, N: 9},
		{Mode: othello.Std, Empties: 20, Shallow: endCutShallow(20) + 1, A: 1, B: 9, Sigma: 9, N: 9},
	}
	cells := endCutModel(fits, othello.Std)
	require.NotNil(t, cells)
	assert.Zero(t, cells[endCutMin-1].shallow, "no cut below endCutMin")
	assert.Equal(t, endCutCell{shallow: endCutShallow(14), a: 1, b: 1, sigma: 3}, cells[14])
	assert.Equal(t, endCutCell{shallow: endCutShallow(20), a: 1, b: 2, sigma: 4}, cells[21])
	assert.Nil(t, endCutModel(fits, othello.Anti))
}

// wrongEndCut is a selective endgame whose every cut is wrong by 20 discs
// and trusted to a hundredth of a disc: the selective passes go astray, and
// the exact pass must still find the true score.
func wrongEndCut() []EndCutFit {
	var fits []EndCutFit
	for n := endCutMin; n <= 64; n++ {
		fits = append(fits, EndCutFit{Mode: othello.Std, Empties: n, Shallow: endCutShallow(n), A: 1, B: 20, Sigma: 0.01, N: 1})
	}
	return fits
}

// TestSelectivePassesLeaveTheSolveExact solves positions with enough
// empties for the selectivity ramp, on 1 and 3 threads, with the default
// fits and with wrong ones, and wants the scores of a solve without the
// selective endgame.
func TestSelectivePassesLeaveTheSolveExact(t *testing.T) {
	// -short (the race detector's run): one position, the 3-thread
	// engines only (split points carry the pass's level).
	count, threads := 1, []int{3}
	if !testing.Short() {
		count, threads = 6, []int{1, 3}
	}
	ev, err := eval.Embedded()
	require.NoError(t, err)
	opts := func(threads int, pc *ProbCut) Options {
		return Options{Threads: threads, HashMB: 8, Eval8: ev.Eval8, Eval10: ev.Eval10, ProbCut: pc}
	}
	plain := New(opts(1, &ProbCut{Fits: patternProbCut().Fits}))
	require.Nil(t, plain.mpc[othello.Std].end)
	wrong := withEnd(patternProbCut())
	wrong.End = wrongEndCut()
	engines := map[string]*Engine{}
	for _, n := range threads {
		engines[fmt.Sprintf("default, %d threads", n)] = New(opts(n, nil))
		engines[fmt.Sprintf("wrong, %d threads", n)] = New(opts(n, wrong))
	}
	require.NotNil(t, New(opts(1, nil)).mpc[othello.Std].end)
	rng := uint64(0x5eed)
	for i := 0; i < count; {
		pos, ok := plain.NoisyGame(othello.Std, endRampMin, &rng)
		if !ok || pos.Empties().Count() != endRampMin {
			continue
		}
		i++
		plain.ClearHash()
		want, err := plain.Search(context.Background(), pos, Limits{Exact: true})
		require.NoError(t, err)
		require.True(t, want.Exact)
		for name, e := range engines {
			e.ClearHash()
			got, err := e.Search(context.Background(), pos, Limits{Exact: true})
			require.NoError(t, err)
			assert.True(t, got.Exact, "%s position %d", name, i)
			assert.Equal(t, want.Score, got.Score, "%s position %d", name, i)
		}
	}
}
