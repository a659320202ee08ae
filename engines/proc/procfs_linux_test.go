package proc

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStat(t *testing.T) {
	// Fields 3 to 22 of proc_pid_stat(5), then a few more.
	const rest = " 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 8812345 1000 100 18446744073709551615"
	tests := []struct {
		name string
		in   string
		want procStat
		err  bool
	}{
		{"plain", "4242 (sleep) S 4200 4242 4000" + rest,
			procStat{pid: 4242, state: 'S', ppid: 4200, pgid: 4242, sid: 4000, start: 8812345}, false},
		{"comm with spaces and parentheses", "7 (a b) (c)) Z 1 7 7" + rest,
			procStat{pid: 7, state: 'Z', ppid: 1, pgid: 7, sid: 7, start: 8812345}, false},
		{"no comm", "7 S 1 7 7" + rest, procStat{}, true},
		{"short", "7 (x) S 1 7 7 1 1", procStat{}, true},
		{"bad pid", "x (x) S 1 7 7" + rest, procStat{}, true},
		{"bad ppid", "7 (x) S y 7 7" + rest, procStat{}, true},
		{"bad state", "7 (x) SS 1 7 7" + rest, procStat{}, true},
		{"empty", "", procStat{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStat([]byte(tc.in))
			if tc.err {
				require.ErrorIs(t, err, errStat)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestReadProcsFindsUs(t *testing.T) {
	procs, err := readProcs()
	require.NoError(t, err)
	var self []procStat
	for _, p := range procs {
		if p.pid == os.Getpid() {
			self = append(self, p)
		}
	}
	require.Len(t, self, 1)
	assert.Equal(t, os.Getppid(), self[0].ppid)
	assert.Equal(t, ourSession(), self[0].sid)
	again, err := readStat(os.Getpid())
	require.NoError(t, err)
	assert.Equal(t, self[0].start, again.start, "the start time names the process")
}
