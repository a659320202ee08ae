package web

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/store"
)

func TestCodeMatches(t *testing.T) {
	assert.True(t, codeMatches("123456", "123456"))
	assert.True(t, codeMatches("123 456", "123456"))
	assert.True(t, codeMatches("123-456", "123456"))
	assert.False(t, codeMatches("123457", "123456"))
	assert.False(t, codeMatches("", ""), "no code, no match")
	assert.False(t, codeMatches("12345", "123456"))
}

func FuzzCodeMatches(f *testing.F) {
	f.Add("123456", "123456")
	f.Add("12 34 56", "123456")
	f.Fuzz(func(t *testing.T, typed, code string) {
		if codeMatches(typed, code) && code == "" {
			t.Fatal("matched an empty code")
		}
	})
}

// TestHugePasswordFileIsNotRead: a password file of 300 MB (sparse here)
// is refused by its size, not read at every admin request.
func TestHugePasswordFileIsNotRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gokr-pw.txt")
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	require.NoError(t, os.Truncate(p, 300<<20))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := passwordSource{files: []string{p}}.password()
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, store.ErrTooLarge)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated")
}
