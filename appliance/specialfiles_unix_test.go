//go:build unix

package appliance

import (
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/store"
)

// TestPipesInPlaceOfFilesDoNotHangTheStart: named pipes as the rating
// history, the settings and the token file are refused at the start (one
// log line each), the pages come up, and SIGTERM stops the appliance.
// Before, the start blocked in open(2) on the rating history for ever: no
// pages, no bot, and SIGTERM did not stop it.
func TestPipesInPlaceOfFilesDoNotHangTheStart(t *testing.T) {
	e := startEnv(t, func(cfg *Config, a *app) {
		require.NoError(t, os.MkdirAll(cfg.Dir, 0o700))
		for _, name := range []string{ratings.FileName, settings.FileName, store.TokenFileName, ResultsFileName} {
			require.NoError(t, syscall.Mkfifo(filepath.Join(cfg.Dir, name), 0o600))
		}
	}) // startEnv fails the test when the pages are not served within 10 s
	code, body := e.get("/", false)
	require.Equal(t, http.StatusOK, code)
	assert.NotEmpty(t, body)
	logs := e.logs.String()
	assert.Contains(t, logs, "rating history unreadable")
	assert.Contains(t, logs, "recent results unreadable")
	assert.Contains(t, logs, "named pipe: not a regular file")
	assert.Equal(t, ExitSignalled, e.stop())
}
