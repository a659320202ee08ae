package record

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/atomicfile"
)

// logTo returns a logger writing text lines to buf.
func logTo(buf *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// TestSparseGamesFileRefusedUnread: a games file larger than the cap (an
// 8 GB sparse one taking a few KB) is refused at open without being read,
// with one log line, and never appended to; the other files are read.
// Before, the store read it to its end (14.7 s for `flipbot games list`,
// and the appliance's start waited as long), counting it a bad line.
func TestSparseGamesFileRefusedUnread(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 3)
	s := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, s.Add(gs[0]))
	sparse := filepath.Join(dir, segName(2))
	f, err := os.Create(sparse)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(8<<30))
	require.NoError(t, f.Close())

	var logs bytes.Buffer
	s = Open(Options{Dir: dir, Logger: logTo(&logs)})
	st := s.Status()
	assert.True(t, st.OK, st.Problem)
	assert.Equal(t, 1, st.Games, "the first file is read")
	assert.Equal(t, 0, st.Skipped, "the refused file is not read (before: one line of 8 GB skipped)")
	assert.Equal(t, 1, strings.Count(logs.String(), "\n"), logs.String())
	assert.Contains(t, logs.String(), segName(2))
	assert.Contains(t, logs.String(), "cap")

	require.NoError(t, s.Add(gs[1]))
	fi, err := os.Stat(sparse)
	require.NoError(t, err)
	assert.Equal(t, int64(8<<30), fi.Size(), "never appended to")
	got, err := s.Get(gs[1].ID)
	require.NoError(t, err)
	assert.Equal(t, gs[1].ID, got.ID)
}

// symlinkedAnalysis makes a store directory holding a game whose
// analysis/ is a symbolic link to another directory, target, which holds
// files the store would take for its own (temp files, analyses of games
// older than any kept). It returns the store's directory and target.
func symlinkedAnalysis(t *testing.T, g Game) (dir, target string) {
	t.Helper()
	dir, target = t.TempDir(), t.TempDir()
	s := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, s.Add(g))
	for _, name := range []string{".tmp-draft.txt", ".tmp-thesis.tex", "1-2-3.json", "2024-01-05.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(target, name), []byte("mine"), 0o644))
	}
	if err := os.Symlink(target, filepath.Join(dir, analysisDir)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return dir, target
}

// targetUntouched checks that target holds what symlinkedAnalysis put
// there and nothing more.
func targetUntouched(t *testing.T, target string) {
	t.Helper()
	des, err := os.ReadDir(target)
	require.NoError(t, err)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
		data, err := os.ReadFile(filepath.Join(target, de.Name()))
		require.NoError(t, err)
		assert.Equal(t, "mine", string(data), de.Name())
	}
	assert.ElementsMatch(t, []string{".tmp-draft.txt", ".tmp-thesis.tex", "1-2-3.json", "2024-01-05.json"}, names)
}

// TestSymlinkedAnalysisDirRefused: an analysis/ that is a symbolic link is
// refused with one log line, read-write or read-only: nothing in its
// target is deleted (before, opening the store, even for `flipbot games
// list`, deleted the target's temp-looking and id-looking files) or
// written (an analysis is refused), and the games are listed.
func TestSymlinkedAnalysisDirRefused(t *testing.T) {
	g := games(t, 1)[0]
	for _, readOnly := range []bool{false, true} {
		dir, target := symlinkedAnalysis(t, g)
		var logs bytes.Buffer
		s := Open(Options{Dir: dir, Logger: logTo(&logs), ReadOnly: readOnly})
		sums, n := s.List(Filter{}, 0, 0)
		require.Equal(t, 1, n)
		assert.Equal(t, g.ID, sums[0].ID)
		assert.Nil(t, sums[0].Analysis)
		targetUntouched(t, target)
		assert.Equal(t, 1, strings.Count(logs.String(), "\n"), logs.String())
		assert.Contains(t, logs.String(), "analys")

		err := s.SaveAnalysis(fakeAnalysis(g, 2))
		require.Error(t, err, "read-only %v", readOnly)
		targetUntouched(t, target)
		_, err = s.Analysis(g.ID)
		require.Error(t, err)
		s.SetCap(MinCapBytes)
		targetUntouched(t, target)
		assert.Equal(t, 1, strings.Count(logs.String(), "\n"), "logged once: %s", logs.String())
	}
}

// TestReadOnlyStoreWritesAndDeletesNothing: a store opened read-only
// (flipbot games list, show, export) leaves its directory as it found it:
// a crash's temp files and stray analyses stay, a missing directory is not
// made, and adding a game or an analysis is refused. A read-write store
// tidies them away.
func TestReadOnlyStoreWritesAndDeletesNothing(t *testing.T) {
	gs := games(t, 2)
	dir := t.TempDir()
	s := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, s.Add(gs[0]))
	require.NoError(t, s.SaveAnalysis(fakeAnalysis(gs[0], 1)))
	stray := []string{".tmp-1-2-3.json-x", "1-2-3.json"}
	for _, name := range stray {
		require.NoError(t, os.WriteFile(filepath.Join(dir, analysisDir, name), []byte("x"), 0o644))
	}
	list := func() []string {
		var out []string
		require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			out = append(out, p)
			return err
		}))
		return out
	}
	before := list()

	ro := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler), ReadOnly: true})
	assert.Equal(t, 1, ro.Status().Analysed)
	assert.ErrorIs(t, ro.Add(gs[1]), ErrReadOnly)
	g, err := ro.Get(gs[0].ID)
	require.NoError(t, err)
	assert.ErrorIs(t, ro.SaveAnalysis(fakeAnalysis(g, 3)), ErrReadOnly)
	ro.SetCap(MinCapBytes)
	assert.Equal(t, before, list(), "nothing written or deleted")

	missing := filepath.Join(dir, "missing")
	m := Open(Options{Dir: missing, Logger: slog.New(slog.DiscardHandler), ReadOnly: true})
	assert.False(t, m.Status().OK)
	assert.NoDirExists(t, missing)

	Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	for _, name := range stray {
		assert.NoFileExists(t, filepath.Join(dir, analysisDir, name), "a read-write store tidies")
	}
}

// TestGamesFileNotRegularSkipped: a games file's name held by a directory
// is skipped with a log line, and never written through.
func TestGamesFileNotRegularSkipped(t *testing.T) {
	gs := games(t, 2)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, segName(4)), 0o755))
	var logs bytes.Buffer
	s := Open(Options{Dir: dir, Logger: logTo(&logs)})
	assert.Contains(t, logs.String(), segName(4))
	require.NoError(t, s.Add(gs[0]))
	assert.FileExists(t, filepath.Join(dir, segName(5)), "a new file after the highest number seen")
	got, err := s.Get(gs[0].ID)
	require.NoError(t, err)
	assert.Equal(t, gs[0].ID, got.ID)
	_, _, err = atomicfile.OpenRegular(mustRoot(t, dir), segName(4), os.O_RDONLY, 0)
	assert.True(t, errors.Is(err, atomicfile.ErrNotRegular), "%v", err)
}

func mustRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// analysisPathForTest is the path of id's analysis file.
func (s *Store) analysisPathForTest(id string) string { return filepath.Join(s.dir, analysisName(id)) }
