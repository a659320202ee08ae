package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWrite: a failed fill leaves the old file and no temporary file; a
// good one replaces it with mode perm; a write into a missing directory
// fails and leaves nothing.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
	only := func() {
		t.Helper()
		des, err := os.ReadDir(dir)
		require.NoError(t, err)
		require.Len(t, des, 1, "no temporary file left")
	}

	boom := errors.New("boom")
	err := Write(path, 0o644, func(w io.Writer) error {
		_, _ = io.WriteString(w, strings.Repeat("half", 1<<15)) // past the buffer: on disk
		return boom
	})
	require.ErrorIs(t, err, boom)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(b), "a failed write leaves the old file")
	only()

	require.NoError(t, Write(path, 0o644, func(w io.Writer) error {
		_, err := io.WriteString(w, "new\n")
		return err
	}))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(b))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	only()

	require.Error(t, Write(filepath.Join(dir, "missing", "x"), 0o644, func(io.Writer) error { return nil }))
	only()
}

// TestWriteFileStages: a crash at each stage leaves the old content
// before the rename and the new after it; the temp file a crash leaves is
// removed by CleanTemps; a failed rename cleans up after itself.
func TestWriteFileStages(t *testing.T) {
	crash := errors.New("power cut")
	for _, tc := range []struct {
		stage Stage
		want  string
		temps int
	}{
		{StageCreated, "old", 1},
		{StageWritten, "old", 1},
		{StageRenamed, "new", 0},
	} {
		t.Run(string(tc.stage), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			require.NoError(t, WriteFile(path, []byte("old"), 0o600))
			fs := FS{Fault: func(s Stage) error {
				if s == tc.stage {
					return crash
				}
				return nil
			}}
			require.ErrorIs(t, fs.WriteFile(path, []byte("new"), 0o600), crash)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(b))
			m, _ := filepath.Glob(filepath.Join(dir, TempPrefix+"f-*"))
			assert.Len(t, m, tc.temps)
			CleanTemps(dir, "f")
			m, _ = filepath.Glob(filepath.Join(dir, TempPrefix+"f-*"))
			assert.Empty(t, m)
		})
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	fs := FS{Rename: func(string, string) error { return os.ErrPermission }}
	require.ErrorIs(t, fs.WriteFile(path, []byte("x"), 0o600), os.ErrPermission)
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, des, "a real error removes its temp file")
}
