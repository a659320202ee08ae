//go:build unix

package record

import (
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/atomicfile"
	"flipbot.dev/flipbot/internal/testutil"
)

// fifoInPlace replaces path by a FIFO.
func fifoInPlace(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.Remove(path))
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}

// TestFIFOInPlaceOfAFileDoesNotHang: a FIFO put in place of a games file
// or an analysis after the store read them makes reading a game, reading
// its analysis and adding a game fail at once (before, each waited for
// ever for the FIFO's other end); one there at open is skipped.
func TestFIFOInPlaceOfAFileDoesNotHang(t *testing.T) {
	gs := games(t, 3)
	dir := t.TempDir()
	s := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, s.Add(gs[0]))
	require.NoError(t, s.SaveAnalysis(fakeAnalysis(gs[0], 1)))

	fifoInPlace(t, s.analysisPathForTest(gs[0].ID))
	testutil.Within(t, 10*time.Second, "Analysis", func() {
		_, err := s.Analysis(gs[0].ID)
		assert.ErrorIs(t, err, atomicfile.ErrNotRegular)
	})
	fifoInPlace(t, filepath.Join(dir, segName(1)))
	testutil.Within(t, 10*time.Second, "Get", func() {
		_, err := s.Get(gs[0].ID)
		assert.ErrorIs(t, err, atomicfile.ErrNotRegular)
	})
	testutil.Within(t, 10*time.Second, "Add", func() {
		assert.Error(t, s.Add(gs[1]))
	})
	assert.Equal(t, 1, s.Status().Unsaved, "kept in memory until the disk takes it")
	testutil.Within(t, 10*time.Second, "Open", func() {
		s = Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	})
	testutil.Within(t, 10*time.Second, "Add after a reopen", func() {
		require.NoError(t, s.Add(gs[2]))
	})
	assert.FileExists(t, filepath.Join(dir, segName(2)))
}

// TestAnalysesCountedByDiskBlocks: an analysis counts the disk space its
// file takes (its blocks: 4 KiB for a small file on most file systems),
// not its bytes (before: 500 analyses counted 156 KB and took 2.08 MB).
func TestAnalysesCountedByDiskBlocks(t *testing.T) {
	gs := games(t, 2)
	dir := t.TempDir()
	s := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	var want int64
	for _, g := range gs {
		require.NoError(t, s.Add(g))
		require.NoError(t, s.SaveAnalysis(fakeAnalysis(g, 1)))
		fi, err := os.Stat(s.analysisPathForTest(g.ID))
		require.NoError(t, err)
		blocks := fi.Sys().(*syscall.Stat_t).Blocks * 512
		require.Positive(t, blocks)
		want += max(int64(blocks), fi.Size())
		assert.Less(t, fi.Size(), int64(blocks), "a small file takes a whole block")
	}
	assert.Equal(t, want, s.Status().AnalysisBytes)
	reopened := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	assert.Equal(t, want, reopened.Status().AnalysisBytes, "the same when read back")
}
