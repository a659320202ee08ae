package store

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The process really dies (exit inside the write, as a power cut or a
// SIGKILL would end it) between the fsync of the temp file and the rename:
// the next start reads the old token.
func TestTokenStoreProcessDiesBeforeRename(t *testing.T) {
	if dir := os.Getenv("FLIPBOT_CRASH_DIR"); dir != "" {
		s := NewTokenFile(dir)
		s.FS.Fault = func(stage Stage) error {
			if string(stage) == os.Getenv("FLIPBOT_CRASH_STAGE") {
				os.Exit(3) // no deferred clean-up runs, like a power cut
			}
			return nil
		}
		s.Save(mustToken(t, tokB))
		os.Exit(0)
	}
	for _, tc := range []struct {
		stage Stage
		want  string
	}{{StageWritten, tokA}, {StageRenamed, tokB}} {
		t.Run(string(tc.stage), func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, NewTokenFile(dir).Save(mustToken(t, tokA)))
			cmd := exec.Command(os.Args[0], "-test.run=^TestTokenStoreProcessDiesBeforeRename$")
			cmd.Env = append(os.Environ(), "FLIPBOT_CRASH_DIR="+dir, "FLIPBOT_CRASH_STAGE="+string(tc.stage))
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			require.Equal(t, 3, exit.ExitCode(), "the child died inside the write")

			got, err := NewTokenFile(dir).Load()
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Reveal())
			if tc.stage == StageWritten {
				m, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
				require.Len(t, m, 1, "the complete temp file is left behind")
				b, _ := os.ReadFile(m[0])
				assert.Equal(t, tokB, strings.TrimSpace(string(b)))
			}
		})
	}
}
