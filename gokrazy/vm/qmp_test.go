package vm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeQMP is a stand-in for QEMU's QMP socket: it greets, takes the
// capabilities handshake, sends an event before each answer (as QEMU may),
// and answers "xp /1wx ADDR" from mem.
func fakeQMP(t *testing.T, sock string, mem map[uint64]uint32) {
	t.Helper()
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				fmt.Fprintln(c, `{"QMP": {"version": {"qemu": {"micro": 22, "minor": 2, "major": 7}}, "capabilities": ["oob"]}}`)
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var req struct {
						Execute   string
						Arguments map[string]string
					}
					if json.Unmarshal(sc.Bytes(), &req) != nil {
						fmt.Fprintln(c, `{"error": {"class": "GenericError", "desc": "JSON parse error"}}`)
						continue
					}
					fmt.Fprintln(c, `{"timestamp": {"seconds": 1, "microseconds": 2}, "event": "RTC_CHANGE", "data": {"offset": 0}}`)
					switch req.Execute {
					case "qmp_capabilities":
						fmt.Fprintln(c, `{"return": {}}`)
					case "human-monitor-command":
						var addr uint64
						if _, err := fmt.Sscanf(req.Arguments["command-line"], "xp /1wx %v", &addr); err != nil {
							fmt.Fprintln(c, `{"return": "unknown command\r\n"}`)
							continue
						}
						b, _ := json.Marshal(fmt.Sprintf("%016x: 0x%08x\r\n", addr, mem[addr]))
						fmt.Fprintf(c, "{\"return\": %s}\n", b)
					default:
						fmt.Fprintf(c, "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": \"The command %s has not been found\"}}\n", req.Execute)
					}
				}
			}()
		}
	}()
}

func TestGPIOLevels(t *testing.T) {
	dir := t.TempDir()
	// GPIO17 (green) and GPIO22 (red) driven high.
	fakeQMP(t, filepath.Join(dir, "qmp.sock"), map[uint64]uint32{GPLEV0: 1<<17 | 1<<22})
	v := &VM{cfg: Config{Machine: Pi3B}, dir: dir, cmd: &exec.Cmd{}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := v.GPIOLevels(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint32(1<<17|1<<22), l)

	samples, err := v.SampleGPIO(ctx, 50*time.Millisecond, 5*time.Millisecond)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(samples), 3, "one connection, many reads")
	for _, s := range samples {
		assert.Equal(t, uint32(1<<17|1<<22), s.Levels)
	}

	w, err := v.ReadWord(ctx, 0x1000)
	require.NoError(t, err)
	assert.Zero(t, w)

	virt := &VM{cfg: Config{Machine: Virt}, dir: dir, cmd: &exec.Cmd{}}
	_, err = virt.GPIOLevels(ctx)
	assert.ErrorContains(t, err, "no BCM2837")
	off := &VM{cfg: Config{Machine: Pi3B}, dir: dir}
	_, err = off.GPIOLevels(ctx)
	assert.ErrorContains(t, err, "the board is off")
}

func TestQMPRefusesHostileAnswers(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "qmp.sock")
	l, err := net.Listen("unix", sock)
	require.NoError(t, err)
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		fmt.Fprintln(c, `{"QMP": {}}`)
		fmt.Fprintln(c, strings.Repeat("x", 100<<10)) // no end in sight
		_, _ = io.Copy(io.Discard, c)                 // until the client hangs up
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = dialQMP(ctx, sock)
	assert.ErrorContains(t, err, "too long")
}
