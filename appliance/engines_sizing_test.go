package appliance

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/sizing"
)

func TestStdEgaroucidFitsTheDevice(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	zero2W := sizing.Machine{Memory: 427 * sizing.MiB, Cores: 4}
	pi3 := sizing.Machine{Memory: 906 * sizing.MiB, Cores: 4}
	pi4 := sizing.Machine{Memory: 1848 * sizing.MiB, Cores: 4}
	tests := []struct {
		name    string
		m       sizing.Machine
		matches int
		slots   int // Egaroucid processes at most (0: the built-in engine plays std)
	}{
		{"Zero 2 W: built-in engine for std", zero2W, 1, 0},
		{"1 GB Pi, one match at a time", pi3, 1, 2},
		{"1 GB Pi, two matches at once: Egaroucid for one of them", pi3, 2, 2},
		{"2 GB Pi 4, two matches at once", pi4, 2, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := settings.Default()
			s.MaxMatches = tc.matches
			pool := newEgaroucidPool("/nonexistent/egaroucid", s, tc.m, engines.Shared(&namedEngine{name: "builtin"}), log)
			if tc.slots == 0 {
				assert.Nil(t, pool)
				return
			}
			if assert.NotNil(t, pool) {
				assert.Equal(t, tc.slots, pool.Slots())
			}
		})
	}
}
