package edax

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/othello"
)

// install lays out a fake Edax like the Linux archive: dir/lEdax-x86-64
// (a link to this test binary) and dir/data/eval.dat, unless evalAt says
// where eval.dat goes ("data", "beside", "parent", "none").
func install(t *testing.T, evalAt string) (bin string) {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	root := t.TempDir()
	dir := filepath.Join(root, "edax-4.6", "bin")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	bin = filepath.Join(dir, "lEdax-x86-64")
	require.NoError(t, os.Symlink(exe, bin))
	var eval string
	switch evalAt {
	case "data":
		eval = filepath.Join(dir, "data", "eval.dat")
	case "beside":
		eval = filepath.Join(dir, "eval.dat")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755)) // for the fake's check
	case "parent":
		eval = filepath.Join(root, "edax-4.6", "data", "eval.dat")
	case "none":
		return bin
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(eval), 0o755))
	require.NoError(t, os.WriteFile(eval, []byte("fake"), 0o644))
	return bin
}

func last(pos othello.Position) int {
	l := pos.LegalMoves()
	return l[len(l)-1]
}

func TestEvalIsFound(t *testing.T) {
	for _, where := range []string{"data", "beside", "parent"} {
		t.Run(where, func(t *testing.T) {
			bin := install(t, where)
			got, err := FindEval(bin)
			require.NoError(t, err)
			assert.FileExists(t, got)
			e, err := New(Options{Path: bin, ExtraArgs: []string{"-fake", "quick"}})
			require.NoError(t, err)
			defer e.Close()
			pos := othello.New(othello.Std)
			res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: time.Minute, Budget: 5 * time.Second})
			require.NoError(t, err)
			assert.Equal(t, last(pos), res.Move)
			assert.Equal(t, uint64(4242), res.Nodes)
			assert.InDelta(t, -2.0, res.Score, 1e-9)
		})
	}
}

func TestMissingEvalOrBinary(t *testing.T) {
	bin := install(t, "none")
	_, err := New(Options{Path: bin})
	require.ErrorIs(t, err, ErrNoEval)
	_, err = New(Options{Path: bin, EvalFile: filepath.Join(t.TempDir(), "nope.dat")})
	require.Error(t, err)
	_, err = New(Options{Path: filepath.Join(t.TempDir(), "no-edax")})
	require.Error(t, err)
	_, err = New(Options{})
	require.Error(t, err)
}

func TestExplicitEvalFile(t *testing.T) {
	bin := install(t, "none")
	require.NoError(t, os.MkdirAll(filepath.Join(filepath.Dir(bin), "data"), 0o755))
	eval := filepath.Join(t.TempDir(), "my-eval.dat")
	require.NoError(t, os.WriteFile(eval, []byte("fake"), 0o644))
	e, err := New(Options{Path: bin, EvalFile: eval, ExtraArgs: []string{"-fake", "quick"}})
	require.NoError(t, err)
	defer e.Close()
	pos := enginetest.Positions(t, 3)[2]
	res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: time.Minute, Budget: 5 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, last(pos), res.Move)
}

func TestClockStopsTheSearch(t *testing.T) {
	enginetest.NoLeak(t)
	bin := install(t, "data")
	e, err := New(Options{Path: bin})
	require.NoError(t, err)
	assert.Equal(t, "Edax", e.Name())
	assert.True(t, e.Supports(othello.Std))
	assert.False(t, e.Supports(othello.Anti))
	for _, pos := range enginetest.Positions(t, 3) {
		// The fake searches 10 s unless stopped: the budget of 3 s is
		// met only because the think time stops it with a ping.
		res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 10 * time.Second, Budget: 3 * time.Second})
		require.NoError(t, err)
		assert.Equal(t, last(pos), res.Move)
	}
	require.NoError(t, e.Close())
}

func TestCrashIsAnError(t *testing.T) {
	bin := install(t, "data")
	e, err := New(Options{Path: bin, ExtraArgs: []string{"-fake", "crash"}})
	require.NoError(t, err)
	defer e.Close()
	_, err = e.Move(context.Background(), engines.Request{Position: othello.New(othello.Std), Remaining: time.Minute, Budget: 2 * time.Second})
	require.Error(t, err)
}

func TestSlowStartLeavesTimeToAnswer(t *testing.T) {
	bin := install(t, "data")
	e, err := New(Options{Path: bin, ExtraArgs: []string{"-fake", "slowstart"}})
	require.NoError(t, err)
	defer e.Close()
	pos := othello.New(othello.Std)
	// The clock alone would allot 1.25 s of thinking; after a 0.6 s start
	// that would end past the 1.5 s budget: the search must be stopped
	// earlier.
	res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: time.Minute, Budget: 1500 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, last(pos), res.Move)
}

func TestScoreDepthThreadsAndHash(t *testing.T) {
	bin := install(t, "data")
	e, err := New(Options{Path: bin, Threads: 3, Hash: 17, ExtraArgs: []string{"-fake", "args"}})
	require.NoError(t, err)
	defer e.Close()
	pos := othello.New(othello.Std)
	res, err := e.Move(context.Background(), engines.Request{Position: pos, Remaining: 10 * time.Second, Budget: 3 * time.Second})
	require.NoError(t, err, "-n 3 -h 17 reach Edax")
	assert.Equal(t, last(pos), res.Move)
	assert.Equal(t, 13, res.Depth, "the depth of hint's search line")
	assert.InDelta(t, -2.0, res.Score, 1e-9)
	assert.Equal(t, uint64(4242), res.Nodes)

	_, err = New(Options{Path: bin, Hash: 31})
	require.Error(t, err)
}
