package proc

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseStatusMemory(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Memory
		err  bool
	}{
		{"both", "Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n", Memory{RSS: 1 << 20, Peak: 2 << 20}, false},
		{"rss only", "VmRSS: 4 kB\n", Memory{RSS: 4096, Peak: 4096}, false},
		{"zombie", "Name:\tx\nState:\tZ (zombie)\n", Memory{}, true},
		{"bad unit", "VmRSS: 4 MB\n", Memory{}, true},
		{"bad number", "VmRSS: x kB\n", Memory{}, true},
		{"huge", "VmRSS: 99999999999999999 kB\n", Memory{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseStatusMemory(strings.NewReader(tc.in))
			if tc.err {
				require.ErrorIs(t, err, ErrNoMemory)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestProcessMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil || runtime.GOOS != "linux" {
		t.Skip("no /proc here")
	}
	p := start(t, nil, Config{QuitLine: "quit"}, "echo")
	// Read its memory once it runs: right after the fork it is still being
	// exec'd and holds a few KiB.
	require.NoError(t, p.Send("ready?"))
	select {
	case <-p.Lines():
	case <-time.After(10 * time.Second):
		t.Fatal("the echo engine did not answer")
	}
	m, err := p.Memory()
	require.NoError(t, err)
	assert.Greater(t, m.RSS, uint64(100<<10), "a Go test binary holds more than 100 KiB")
	assert.GreaterOrEqual(t, m.Peak, m.RSS)
	p.Stop()
	_, err = ReadMemory(p.Pid())
	assert.ErrorIs(t, err, ErrNoMemory, "a reaped process has no memory")
}

func FuzzParseStatusMemory(f *testing.F) {
	f.Add("VmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n")
	f.Add("VmRSS: 1 kB")
	f.Add("VmRSS:")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseStatusMemory(strings.NewReader(s))
		if err == nil && m.Peak < m.RSS {
			t.Fatalf("%q: peak %d under rss %d", s, m.Peak, m.RSS)
		}
	})
}
