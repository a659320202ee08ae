//go:build unix

package store

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/testutil"
)

// mkfifo makes a named pipe at path; nothing ever writes to it.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o600))
}

// TestFilesThatArePipesDoNotBlock: a named pipe as the token file or the
// settings file makes Load fail at once (the settings' defaults apply),
// saying which file; a link is not followed.
func TestFilesThatArePipesDoNotBlock(t *testing.T) {
	dir := t.TempDir()
	tokens := NewTokenFile(dir)
	mkfifo(t, tokens.Path())
	var err error
	testutil.Within(t, time.Second, "the token's Load", func() { _, err = tokens.Load() })
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Contains(t, err.Error(), tokens.Path(), "the error says which file")
	assert.NotErrorIs(t, err, ErrNoToken)

	settings := NewFile(dir, Format[string]{Name: "settings.json", What: "settings",
		Decode: func(b []byte) (string, error) { return string(b), nil }, Default: func() string { return "default" }})
	mkfifo(t, settings.Path())
	var v string
	testutil.Within(t, time.Second, "the settings' Load", func() { v, err = settings.Load() })
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Equal(t, "default", v, "the defaults apply")

	// A link to a good token is not followed: the token file is flipbot's
	// own, written by rename, never a link.
	other := t.TempDir()
	require.NoError(t, NewTokenFile(other).Save(mustToken(t, tokA)))
	linked := NewTokenFile(t.TempDir())
	require.NoError(t, os.Symlink(NewTokenFile(other).Path(), linked.Path()))
	_, err = linked.Load()
	require.ErrorIs(t, err, ErrNotRegular)
	assert.NotContains(t, err.Error(), tokA)

	// Saving over the pipe replaces it with a regular file (rename).
	require.NoError(t, tokens.Save(mustToken(t, tokA)))
	got, err := tokens.Load()
	require.NoError(t, err)
	assert.Equal(t, tokA, got.Reveal())
}
