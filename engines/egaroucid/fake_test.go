package egaroucid

import (
	"testing"

	"flipbot.dev/flipbot/engines/egaroucid/egaroucidtest"
)

// TestMain makes the test binary double as a fake Egaroucid for Console
// (egaroucidtest.Fake) when the adapter starts it.
func TestMain(m *testing.M) { egaroucidtest.Main(m) }
