package nboard

import (
	"testing"

	"flipbot.dev/flipbot/engines/internal/enginetest"
)

// TestMain makes the test binary double as the fake engine
// (engines/internal/enginetest's, speaking NBoard's protocol).
func TestMain(m *testing.M) { enginetest.RunFake(m, enginetest.FakeNBoard) }

// fakeCommand returns the command line that runs the fake with args.
func fakeCommand(t testing.TB, args ...string) string { return enginetest.FakeCommand(t, args...) }
