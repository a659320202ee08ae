package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/flipsight"
)

const (
	tokA = "fsbm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	tokB = "fsbm_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
)

var errCrash = errors.New("simulated power cut")

func TestValidateToken(t *testing.T) {
	tests := []struct {
		name, tok string
		ok        bool
	}{
		{"a long string starting with fsbm_", tokA, true},
		{"wrong prefix", "abcd_AAAAAAAAAAAAAAAAAAAAAAAAAAAA", false},
		{"truncated paste", "fsbm_AAAA", false},
		{"empty", "", false},
		{"inner space", "fsbm_AAAAAAAAAA AAAAAAAAAAAAA", false},
		{"non-ASCII", "fsbm_AAAAAAAAAAAAAAAAAAAAAAé", false},
		{"too long", TokenPrefix + strings.Repeat("A", MaxTokenLen), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateToken(tc.tok)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			if len(tc.tok) > len(TokenPrefix) {
				assert.NotContains(t, err.Error(), tc.tok[len(TokenPrefix):], "the error must not repeat the token")
			}
		})
	}
}

func TestTokenStoreRoundTripAndPermissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "home", "flipbot")
	s := NewTokenFile(dir)
	_, err := s.Load()
	require.ErrorIs(t, err, ErrNoToken)

	require.NoError(t, s.Save(mustToken(t, tokA)))
	got, err := s.Load()
	require.NoError(t, err)
	assert.Equal(t, tokA, got.Reveal())

	fi, err := os.Stat(filepath.Join(dir, TokenFileName))
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), "token file mode")
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o700), di.Mode().Perm(), "token directory mode")

	require.NoError(t, s.Save(mustToken(t, tokB)))
	got, err = s.Load()
	require.NoError(t, err)
	assert.Equal(t, tokB, got.Reveal())

	require.NoError(t, s.Remove())
	_, err = s.Load()
	require.ErrorIs(t, err, ErrNoToken)
	require.NoError(t, s.Remove(), "removing twice is fine")
}

func TestTokenStoreRejectsMalformed(t *testing.T) {
	s := NewTokenFile(t.TempDir())
	require.Error(t, s.Save(mustToken(t, "not-a-token")))
	_, err := os.Stat(filepath.Join(s.Dir, TokenFileName))
	require.ErrorIs(t, err, fs.ErrNotExist)

	// A damaged file is reported, without its content.
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, TokenFileName), []byte("fsbm_short\n"), 0o600))
	_, err = s.Load()
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrNoToken)
	assert.NotContains(t, err.Error(), "fsbm_short")
}

// A power cut at each stage of a write leaves the old or the new token,
// never a torn or empty one; leftovers are cleaned by the next write.
func TestTokenStoreCrashAtEachStage(t *testing.T) {
	tests := []struct {
		stage Stage
		want  string
	}{
		{StageCreated, tokA}, // temp file exists, empty
		{StageWritten, tokA}, // temp file complete, not renamed
		{StageRenamed, tokB}, // renamed, directory not fsynced
	}
	for _, tc := range tests {
		t.Run(string(tc.stage), func(t *testing.T) {
			s := NewTokenFile(t.TempDir())
			require.NoError(t, s.Save(mustToken(t, tokA)))
			s.FS.Fault = func(stage Stage) error {
				if stage == tc.stage {
					return errCrash
				}
				return nil
			}
			require.ErrorIs(t, s.Save(mustToken(t, tokB)), errCrash)

			// "Reboot": a fresh store on the same directory.
			after := NewTokenFile(s.Dir)
			got, err := after.Load()
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Reveal())

			require.NoError(t, after.Save(mustToken(t, tokB)))
			entries, err := os.ReadDir(s.Dir)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.Equal(t, []string{TokenFileName}, names, "temp files left after a crash are removed by the next write")
		})
	}
}

// A torn temp file (the write itself cut short) never replaces the token.
func TestTokenStoreTornTempIgnored(t *testing.T) {
	s := NewTokenFile(t.TempDir())
	require.NoError(t, s.Save(mustToken(t, tokA)))
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, tempPrefix+TokenFileName+"-123"), []byte("fsbm_BB"), 0o600))
	got, err := s.Load()
	require.NoError(t, err)
	assert.Equal(t, tokA, got.Reveal())
}

// erofs is the file system of a /perm that was never created: every
// write fails with EROFS.
func erofs() FS {
	return FS{CreateTemp: func(dir, _ string) (*os.File, error) {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.EROFS}
	}}
}

// mustToken is s as a flipsight.Token (any printable ASCII without spaces).
func mustToken(t testing.TB, s string) flipsight.Token {
	t.Helper()
	tok, err := flipsight.NewToken(s)
	require.NoError(t, err)
	return tok
}

func TestTokenStoreReadOnly(t *testing.T) {
	s := NewTokenFile(t.TempDir())
	s.FS = erofs()
	err := s.Save(mustToken(t, tokA))
	require.Error(t, err)
	assert.True(t, IsReadOnly(err), "EROFS is recognisable through the wrapping: %v", err)
	assert.NotContains(t, err.Error(), tokA)
}

func FuzzValidateToken(f *testing.F) {
	for _, s := range []string{tokA, "", "fsbm_", "fsbm_\x00\x00", "FSBM_AAAAAAAAAAAAAAAAAAAAAA"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := ValidateToken(s)
		if err == nil {
			if !strings.HasPrefix(s, TokenPrefix) || len(s) < MinTokenLen || len(s) > MaxTokenLen || strings.ContainsAny(s, " \t\n") {
				t.Fatalf("accepted a malformed token %q", s)
			}
			return
		}
		if len(s) > 8 && strings.Contains(err.Error(), s) {
			t.Fatalf("error repeats the token: %v", err)
		}
	})
}
