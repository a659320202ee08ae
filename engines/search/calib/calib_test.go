package calib

import (
	"bytes"
	"context"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

func TestFitLineRecoversALine(t *testing.T) {
	var values [][]int
	for x := -500; x <= 500; x += 50 {
		values = append(values, []int{0, x, 3*x/2 + 40})
	}
	f, ok := fitLine(values, 1, 2)
	require.True(t, ok)
	assert.InDelta(t, 1.5, f.A, 1e-9)
	assert.InDelta(t, 40, f.B, 1e-9)
	assert.InDelta(t, 0, f.Sigma, 1e-9)
	_, ok = fitLine([][]int{{0, 5, 1}, {0, 5, 2}, {0, 5, 3}}, 1, 2)
	assert.False(t, ok, "a constant shallow value has no fit")
}

func TestProbCutWritesATable(t *testing.T) {
	pc, err := ProbCut(context.Background(), search.Options{HashMB: 1}, ProbCutConfig{Modes: []othello.Mode{othello.Std, othello.Octagon}, Positions: 4, MaxDepth8: 4, MaxDepth10: 3})
	require.NoError(t, err)
	modes := map[othello.Mode]bool{}
	for _, f := range pc.Fits {
		modes[f.Mode] = true
		assert.Equal(t, 4, f.N)
		assert.Equal(t, search.ProbCutShallow(f.Depth), f.Shallow)
	}
	assert.Equal(t, map[othello.Mode]bool{othello.Std: true, othello.Octagon: true}, modes)
	var buf bytes.Buffer
	require.NoError(t, WriteProbCutGo(&buf, pc, "patternProbCut", "test"))
	_, err = parser.ParseFile(token.NewFileSet(), "probcut_pattern.go", buf.Bytes(), 0)
	require.NoError(t, err, "%s", buf.String())
	assert.Contains(t, buf.String(), "func patternProbCut() *ProbCut {")
	require.Error(t, WriteProbCutGo(&buf, pc, "not a name", "test"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ProbCut(ctx, search.Options{}, ProbCutConfig{Positions: 1})
	require.ErrorIs(t, err, context.Canceled)
}

func TestEndCutWritesATable(t *testing.T) {
	fits, err := EndCut(context.Background(), search.Options{HashMB: 1},
		EndCutConfig{Modes: []othello.Mode{othello.Std}, MinEmpties: 12, MaxEmpties: 13, Positions: 4, MaxShallow: 3})
	require.NoError(t, err)
	require.Len(t, fits, 6)
	for _, f := range fits {
		assert.Equal(t, othello.Std, f.Mode)
		assert.Equal(t, 4, f.N)
		assert.Positive(t, f.Sigma)
	}
	var buf bytes.Buffer
	require.NoError(t, WriteEndCutGo(&buf, fits, "patternEndCut", "test"))
	_, err = parser.ParseFile(token.NewFileSet(), "probcut_end.go", buf.Bytes(), 0)
	require.NoError(t, err, "%s", buf.String())
	assert.Contains(t, buf.String(), "func patternEndCut() []EndCutFit {")
	require.Error(t, WriteEndCutGo(&buf, fits, "not a name", "test"))
	_, err = EndCut(context.Background(), search.Options{}, EndCutConfig{Modes: []othello.Mode{othello.Reversi}})
	require.Error(t, err)
}
