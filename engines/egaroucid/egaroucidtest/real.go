package egaroucidtest

import (
	"os"
	"path/filepath"
	"testing"
)

// RealEnv names the real Egaroucid for Console binary for the tests that
// run the real program: a build made outside every repository, with its
// resources/ folder (eval.egev2, eval_move_ordering_end.egev) beside it
// (engines/README.md, "Real programs in tests").
const RealEnv = "FLIPBOT_EGAROUCID"

// Real returns the absolute path of the binary that RealEnv names, and
// skips the test, saying so, when the variable is unset. A variable that
// names no file fails the test.
func Real(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(RealEnv)
	if bin == "" {
		t.Skipf("SKIPPED: set %s to an Egaroucid for Console binary with its resources/ beside it (engines/README.md)", RealEnv)
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		t.Fatalf("%s: %v", RealEnv, err)
	}
	if _, err := os.Stat(abs); err != nil {
		t.Fatalf("%s: %v", RealEnv, err)
	}
	return abs
}
