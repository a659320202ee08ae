package search

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// ffoDir is where the FFO suites are (read-only shared data).
const ffoDir = "../../../shared/data/ffo"

// loadOBF reads an OBF file, skipping the test when it is missing.
func loadOBF(t testing.TB, name string) []OBFPosition {
	t.Helper()
	f, err := os.Open(filepath.Join(ffoDir, name))
	if os.IsNotExist(err) {
		t.Skipf("%s not present", name)
	}
	require.NoError(t, err)
	defer f.Close()
	var out []OBFPosition
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		p, err := ParseOBF(sc.Text())
		require.NoError(t, err)
		out = append(out, p)
	}
	require.NoError(t, sc.Err())
	return out
}

// solveFFO solves each position exactly and checks the score and that the
// move has the best listed score.
func solveFFO(t *testing.T, threads int, positions []OBFPosition) {
	e := New(Options{Threads: threads, HashMB: 32})
	for i, p := range positions {
		e.ClearHash()
		r, err := e.Search(context.Background(), p.Position, Limits{Exact: true, EmptiesToWinner: true})
		require.NoError(t, err, "position %d", i+1)
		want, ok := p.Best()
		require.True(t, ok)
		assert.True(t, r.Exact, "position %d", i+1)
		assert.Equal(t, float64(want), r.Score, "position %d score", i+1)
		assert.Equal(t, want, p.Scores[r.Move], "position %d: %s is not a best move", i+1, othello.SquareName(r.Move, 8))
		t.Logf("#%d %s %+d nodes %d in %v", i+1, othello.SquareName(r.Move, 8), int(r.Score), r.Nodes, r.Elapsed)
	}
}

func TestFFO1to19(t *testing.T) {
	if testing.Short() {
		t.Skip("exact solves of 14–19 empties take seconds; run without -short")
	}
	solveFFO(t, 1, loadOBF(t, "fforum-1-19.obf"))
}

func TestFFOThreadsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("exact solves take seconds; run without -short")
	}
	positions := loadOBF(t, "fforum-1-19.obf")[:6]
	solveFFO(t, max(2, runtime.NumCPU()), positions)
}
