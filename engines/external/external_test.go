package external

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/edax"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/internal/enginetest"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/nboard"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/sizing"
)

func TestKinds(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "data"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "data", "eval.dat"), nil, 0o644))
	edaxBin := filepath.Join(dir, "lEdax")
	require.NoError(t, os.Symlink(exe, edaxBin))

	tests := []struct {
		cfg    Config
		kind   Kind
		perLeg bool
		anti   bool
		check  func(t *testing.T, e any)
	}{
		{Config{Engine: "python3 my_adapter.py"}, JSONLine, false, true, func(t *testing.T, e any) { assert.IsType(t, &jsonline.Engine{}, e) }},
		{Config{NBoard: "ntest x", NBoardDepth: 12}, NBoard, true, false, func(t *testing.T, e any) { assert.IsType(t, &nboard.Engine{}, e) }},
		{Config{Edax: edaxBin}, Edax, true, false, func(t *testing.T, e any) { assert.IsType(t, &nboard.Engine{}, e) }},
		{Config{Egaroucid: exe}, Egaroucid, true, false, func(t *testing.T, e any) { assert.IsType(t, &egaroucid.Engine{}, e) }},
	}
	for _, tc := range tests {
		t.Run(tc.kind.String(), func(t *testing.T) {
			k, err := tc.cfg.Kind()
			require.NoError(t, err)
			assert.Equal(t, tc.kind, k)
			assert.Equal(t, tc.perLeg, tc.cfg.PerLeg())
			assert.True(t, tc.cfg.Supports(othello.Std))
			assert.Equal(t, tc.anti, tc.cfg.Supports(othello.Anti))
			require.NoError(t, tc.cfg.Check())
			e, err := tc.cfg.New()
			require.NoError(t, err)
			tc.check(t, e)
			assert.Implements(t, (*Starter)(nil), e)
			require.NoError(t, e.Close())
		})
	}
}

func TestBadFlags(t *testing.T) {
	k, err := Config{}.Kind()
	require.NoError(t, err)
	assert.Equal(t, None, k)
	require.NoError(t, Config{}.Check())
	_, err = Config{}.New()
	require.Error(t, err)

	for _, cfg := range []Config{
		{Engine: "a", NBoard: "b"},
		{Edax: "a", Egaroucid: "b"},
		{EdaxEval: "eval.dat"},
		{Engine: "a", EdaxEval: "eval.dat"},
		{Engine: `"unterminated`},
		{NBoard: "x", NBoardDepth: 61},
		{Edax: filepath.Join(t.TempDir(), "missing")},
		{Egaroucid: filepath.Join(t.TempDir(), "missing")},
	} {
		assert.Error(t, cfg.Check(), "%+v", cfg)
	}
	// Edax without eval.dat anywhere.
	exe, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "lEdax")
	require.NoError(t, os.Symlink(exe, bin))
	require.ErrorIs(t, Config{Edax: bin}.Check(), edax.ErrNoEval)
}

func TestPlan(t *testing.T) {
	pi3 := sizing.Machine{Memory: 906 * sizing.MiB, Cores: 4}
	_, ok := Config{Engine: "x"}.Plan()
	assert.False(t, ok, "a JSON-line engine sizes itself")

	p, ok := Config{Egaroucid: "x", Machine: pi3}.Plan()
	require.True(t, ok)
	assert.Equal(t, sizing.Egaroucid(pi3, 2), p, "one match: two legs")
	assert.True(t, p.Fits)
	assert.Equal(t, 2, p.Threads, "half the cores per leg")

	p, _ = Config{Egaroucid: "x", Machine: pi3, Legs: 4}.Plan()
	assert.False(t, p.Fits, "two std matches of Egaroucid do not fit a 1 GB Pi")

	p, _ = Config{Edax: "x", Machine: pi3, Threads: 1, HashMB: 16}.Plan()
	assert.Equal(t, 1, p.Threads, "--threads wins")
	assert.Equal(t, sizing.EdaxTable(16), p.Table, "--hash-mb wins")
	assert.Equal(t, sizing.EdaxRSS(p.Table), p.RSS)
	assert.True(t, p.Fits)

	var log enginetest.Log
	exe, err := os.Executable()
	require.NoError(t, err)
	require.NoError(t, Config{Egaroucid: exe, Machine: pi3, Legs: 4, Logger: log.Logger()}.Check())
	assert.True(t, log.Contains("does not fit"), log.String())
}
