package edax

import (
	"testing"

	"flipbot.dev/flipbot/engines/internal/enginetest"
)

// TestMain makes the test binary double as the fake engine
// (engines/internal/enginetest's, speaking Edax's protocol).
func TestMain(m *testing.M) { enginetest.RunFake(m, enginetest.FakeEdax) }
