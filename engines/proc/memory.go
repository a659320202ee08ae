package proc

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident memory, from /proc/PID/status.
type Memory struct {
	// RSS is the resident size now (VmRSS) and Peak the largest it has
	// been (VmHWM), in bytes.
	RSS, Peak uint64
}

// ErrNoMemory is returned when a process's memory cannot be read (not
// Linux, or the process has gone).
var ErrNoMemory = errors.New("process memory not available")

// Memory returns the process's resident memory (Linux only).
func (p *Process) Memory() (Memory, error) {
	return ReadMemory(p.Pid())
}

// ReadMemory returns the resident memory of the process pid (Linux only).
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Memory{}, fmt.Errorf("%w: %v", ErrNoMemory, err)
	}
	defer f.Close()
	return ParseStatusMemory(f)
}

// ParseStatusMemory reads the VmRSS and VmHWM lines ("VmRSS:  1234 kB") of
// a /proc/PID/status file.
func ParseStatusMemory(r io.Reader) (Memory, error) {
	var m Memory
	var seen int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return Memory{}, fmt.Errorf("%w: %s %q", ErrNoMemory, k, strings.TrimSpace(v))
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || kb > 1<<44 {
			return Memory{}, fmt.Errorf("%w: %s %q", ErrNoMemory, k, f[0])
		}
		if k == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.Peak = kb << 10
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return Memory{}, fmt.Errorf("%w: %v", ErrNoMemory, err)
	}
	if seen == 0 {
		return Memory{}, fmt.Errorf("%w: no VmRSS line (a zombie?)", ErrNoMemory)
	}
	m.Peak = max(m.Peak, m.RSS)
	return m, nil
}
