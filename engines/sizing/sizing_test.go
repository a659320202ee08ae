package sizing

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseMemTotal(t *testing.T) {
	got, err := ParseMemTotal(strings.NewReader("MemTotal:         948304 kB\nMemFree: 1 kB\n"))
	require.NoError(t, err)
	assert.Equal(t, uint64(948304)<<10, got)
	for _, bad := range []string{"", "MemFree: 1 kB\n", "MemTotal: x kB\n", "MemTotal: 1 MB\n", "MemTotal: 0 kB\n", "MemTotal:\n"} {
		_, err := ParseMemTotal(strings.NewReader(bad))
		assert.ErrorIs(t, err, ErrNoMemTotal, "%q", bad)
	}
}

func FuzzParseMemTotal(f *testing.F) {
	f.Add("MemTotal:         948304 kB\n")
	f.Add("MemTotal: 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseMemTotal(strings.NewReader(s)); err == nil && (n == 0 || n > 1<<54) {
			t.Fatalf("%q: %d bytes", s, n)
		}
	})
}

// The boards the appliance runs on, by the MemTotal Linux reports on them
// (the GPU's share of the RAM already taken out).
var (
	zero2W = Machine{Memory: 427 * MiB, Cores: 4}
	pi3    = Machine{Memory: 906 * MiB, Cores: 4}
	pi4x2  = Machine{Memory: 1848 * MiB, Cores: 4}
	pi4x4  = Machine{Memory: 3796 * MiB, Cores: 4}
)

func TestBound(t *testing.T) {
	assert.Equal(t, uint64(107*MiB), zero2W.Bound(), "the memory less the reserve")
	assert.Equal(t, uint64(906*MiB/10*6), pi3.Bound(), "60 %")
	assert.Zero(t, Machine{Memory: 256 * MiB}.Bound())
	assert.Equal(t, 2, pi3.LegThreads())
	assert.Equal(t, 1, Machine{Cores: 1}.LegThreads())
}

func TestPlans(t *testing.T) {
	tests := []struct {
		name   string
		m      Machine
		legs   int
		plan   func(Machine, int) Plan
		fits   bool
		table  int
		engine string
	}{
		{"edax, Zero 2 W, one match", zero2W, 2, Edax, false, 10, "edax"},
		{"edax, Pi 3, one match", pi3, 2, Edax, true, 22, "edax"},
		{"edax, Pi 3, two matches", pi3, 4, Edax, true, 21, "edax"},
		{"egaroucid, Zero 2 W", zero2W, 2, Egaroucid, false, 10, "egaroucid"},
		{"egaroucid, Pi 3, one match", pi3, 2, Egaroucid, true, 0, "egaroucid"},
		{"egaroucid, Pi 3, two matches", pi3, 4, Egaroucid, false, 10, "egaroucid"},
		{"egaroucid, Pi 4 2 GB, two matches", pi4x2, 4, Egaroucid, true, 0, "egaroucid"},
		{"egaroucid, Pi 4 4 GB, two matches", pi4x4, 4, Egaroucid, true, 0, "egaroucid"},
		{"egaroucid, a 24 GB PC, two matches", Machine{Memory: 24 << 30, Cores: 2}, 4, Egaroucid, true, EgaroucidMaxTable, "egaroucid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.plan(tc.m, tc.legs)
			assert.Equal(t, tc.fits, p.Fits, "%+v", p)
			if tc.table > 0 {
				assert.Equal(t, tc.table, p.Table)
			}
			assert.Equal(t, tc.m.Bound()/uint64(tc.legs), p.Share)
			if p.Fits {
				assert.LessOrEqual(t, p.RSS*uint64(tc.legs), tc.m.Bound(), "every leg's process together inside the bound")
				rss := EdaxRSS
				if tc.engine == "egaroucid" {
					rss = EgaroucidRSS
				}
				if p.Table < 22 {
					assert.Greater(t, rss(p.Table+1), p.Share, "the largest table that fits")
				}
			}
		})
	}
}

func TestTableFromMiB(t *testing.T) {
	assert.Equal(t, 10, EdaxTable(0))
	assert.Equal(t, 21, EdaxTable(64), "2^21 × 27 B = 54 MiB ≤ 64 MiB < 2^22 × 27 B")
	assert.Equal(t, 22, EdaxTable(1<<16), "at most Edax's default")
	assert.Equal(t, 21, EgaroucidTable(64), "2^21 × 24 B = 48 MiB")
	assert.Equal(t, EgaroucidMaxTable, EgaroucidTable(1<<16), "at most 23, however much memory")
}

func TestPairs(t *testing.T) {
	tests := []struct {
		name  string
		m     Machine
		legs  int
		want  int
		table int
	}{
		{"Zero 2 W: none", zero2W, 4, 0, 10},
		{"1 GB Pi, one match", pi3, 2, 2, 20},
		{"1 GB Pi, two matches: one pair fits", pi3, 4, 2, 20},
		{"1 GB Pi, three matches: still one pair", pi3, 6, 2, 20},
		{"2 GB Pi 4, two matches", pi4x2, 4, 4, 21},
		{"4 GB Pi, two matches", pi4x4, 4, 4, 23},
		{"an odd count is rounded up to a pair", pi4x4, 3, 4, 23},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, p := Pairs(tc.m, tc.legs, Egaroucid)
			assert.Equal(t, tc.want, n)
			assert.Equal(t, tc.table, p.Table)
			assert.Equal(t, n > 0, p.Fits)
			if n > 0 {
				assert.LessOrEqual(t, p.RSS*uint64(n), tc.m.Bound(), "the pairs together inside the bound")
				assert.Equal(t, Egaroucid(tc.m, n), p)
			}
		})
	}
}
