//go:build linux && amd64

package proc

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/winetest"
)

// This package's tests built for Windows and run under Wine: the Job
// Object, the overlapped pipes and the stop without signals.
func TestWindowsBuildUnderWine(t *testing.T) {
	w := winetest.New(t)
	exe := winetest.Build(t, t.TempDir(), "flipbot.dev/flipbot/engines/proc", true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := w.Command(ctx, exe, "-test.short", "-test.count=1", "-test.v").CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"TestJobEndsWithUs", "TestDescendantIsKilled", "TestStopEscalates", "TestWriteTimeout", "TestEchoAndQuit", "TestPipesAreOurUsersOnly"} {
		assert.Contains(t, string(out), "--- PASS: "+name+" ", "%s", out)
	}
}
