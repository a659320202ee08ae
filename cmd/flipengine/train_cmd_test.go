package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

func TestTrainPipeline(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run([]string{"train", "selfplay", "-mode", "anti", "-out", dir, "-chunks", "2", "-games", "3",
		"-depth", "1", "-exact", "6", "-seed", "3"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	files, err := filepath.Glob(filepath.Join(dir, "anti-g1-c*.fbpd"))
	require.NoError(t, err)
	require.Len(t, files, 2)
	assert.Contains(t, errb.String(), "eta=")

	// A second run finds the chunks and makes nothing new.
	errb.Reset()
	code = run([]string{"train", "selfplay", "-mode", "anti", "-out", dir, "-chunks", "2", "-games", "3", "-seed", "3"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, errb.String(), "0 new positions")

	wfile := filepath.Join(dir, "anti.fbpw")
	out.Reset()
	code = run([]string{"train", "fit", "-mode", "anti", "-train", filepath.Join(dir, "*.fbpd"), "-holdout", "2",
		"-epochs", "2", "-out", wfile}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "rmse")
	data, err := os.ReadFile(wfile)
	require.NoError(t, err)
	var w eval.Weights
	require.NoError(t, w.UnmarshalBinary(data))
	assert.Equal(t, othello.Anti, w.Mode)
	assert.Equal(t, eval.LayoutFor(othello.Anti).ID(), w.LayoutID, "new fits have the mobility features")

	out.Reset()
	code = run([]string{"train", "validate", "-weights", wfile, "-data", filepath.Join(dir, "*.fbpd")}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "zero-rmse")
	assert.Contains(t, out.String(), "mobility true")

	// -mobility=false fits generation 1's 8×8 layout, which validates too.
	old := filepath.Join(dir, "anti-nomob.fbpw")
	code = run([]string{"train", "fit", "-mode", "anti", "-mobility=false", "-train", filepath.Join(dir, "*.fbpd"), "-holdout", "2",
		"-epochs", "1", "-out", old}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	out.Reset()
	code = run([]string{"train", "validate", "-weights", old, "-data", filepath.Join(dir, "*.fbpd")}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "mobility false")
	// ... and starts a fit of the layout with them (-init).
	code = run([]string{"train", "fit", "-mode", "anti", "-init", old, "-train", filepath.Join(dir, "*.fbpd"), "-epochs", "1",
		"-out", filepath.Join(dir, "anti-init.fbpw")}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	code = run([]string{"train", "fit", "-mode", "reversi", "-init", old, "-train", filepath.Join(dir, "*.fbpd"), "-out", old}, nil, &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "holds anti weights, not reversi")
	code = run([]string{"train", "fit", "-mode", "grand", "-mobility=false", "-train", filepath.Join(dir, "*.fbpd"), "-out", old}, nil, &out, &errb)
	assert.Equal(t, 2, code)
	assert.Contains(t, errb.String(), "grand has no layout with -mobility=false")

	// The data of one mode does not fit another.
	code = run([]string{"train", "fit", "-mode", "std", "-train", filepath.Join(dir, "*.fbpd"), "-out", wfile}, nil, &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "positions of anti, want std")

	// Self-play with the new weights.
	errb.Reset()
	code = run([]string{"train", "selfplay", "-mode", "anti", "-gen", "2", "-weights", wfile, "-out", dir, "-chunks", "1",
		"-games", "2", "-depth", "1", "-exact", "6"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	_, err = os.Stat(filepath.Join(dir, "anti-g2-c00000.fbpd"))
	assert.NoError(t, err)
}

func TestTrainUsage(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run([]string{"train"}, nil, &out, &errb))
	assert.Contains(t, errb.String(), "usage: flipengine train")
	assert.Equal(t, 2, run([]string{"train", "fit", "-mode", "nope", "-train", "x", "-out", "y"}, nil, &out, &errb))
	assert.Equal(t, 1, run([]string{"train", "wthor", "-in", t.TempDir(), "-out", t.TempDir()}, nil, &out, &errb))
	assert.Contains(t, errb.String(), "no WTH_*.wtb files")
}

func TestEvalFlag(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"engine", "-eval", "magic"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), `unknown evaluation "magic"`)
	for _, ev := range []string{"baseline", "pattern"} {
		errb.Reset()
		line := specLines(t)[0]
		code := run([]string{"engine", "-eval", ev, "-threads", "1", "-hash", "1"}, strings.NewReader(line+"\n"), &out, &errb)
		assert.Equal(t, 0, code, "%s: %s", ev, errb.String())
	}
}

func TestMoveLoss(t *testing.T) {
	obf := "../../../shared/data/ffo/fforum-1-19.obf"
	if _, err := os.Stat(obf); err != nil {
		t.Skip("no ../shared/data/ffo beside the repository")
	}
	data, err := os.ReadFile(obf)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "two.obf")
	lines := strings.SplitN(string(data), "\n", 3)
	require.NoError(t, os.WriteFile(file, []byte(lines[0]+"\n"+lines[1]+"\n"), 0o644))
	var out, errb bytes.Buffer
	code := run([]string{"moveloss", file, "-eval", "baseline", "-threads", "1", "-hash", "1", "-remaining", "1s", "-budget", "200ms"}, nil, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Contains(t, out.String(), "positions 2  mean loss")
}
