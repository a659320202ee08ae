package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// procStat is what /proc/PID/stat tells of a process (proc_pid_stat(5)).
type procStat struct {
	pid   int
	state byte // R, S, D, Z, …
	ppid  int  // the parent now: after the parent's death, its (sub)reaper
	pgid  int
	sid   int
	start uint64 // clock ticks after boot: with pid, names the process
}

// errStat is returned for a stat line that cannot be read.
var errStat = errors.New("malformed /proc/PID/stat")

// parseStat reads a /proc/PID/stat line: "pid (comm) state ppid pgrp
// session … starttime …" (proc_pid_stat(5); starttime is field 22). comm
// may hold spaces and parentheses: the fields start after the last ')'.
func parseStat(b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return procStat{}, errStat
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return procStat{}, fmt.Errorf("%w: pid: %v", errStat, err)
	}
	f := bytes.Fields(b[end+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 22-3+1 || len(f[0]) != 1 {
		return procStat{}, fmt.Errorf("%w: %d fields", errStat, len(f)+2)
	}
	s := procStat{pid: pid, state: f[0][0]}
	for _, v := range []struct {
		dst *int
		n   int
	}{{&s.ppid, 4}, {&s.pgid, 5}, {&s.sid, 6}} {
		if *v.dst, err = strconv.Atoi(string(f[v.n-3])); err != nil {
			return procStat{}, fmt.Errorf("%w: field %d: %v", errStat, v.n, err)
		}
	}
	if s.start, err = strconv.ParseUint(string(f[22-3]), 10, 64); err != nil {
		return procStat{}, fmt.Errorf("%w: starttime: %v", errStat, err)
	}
	return s, nil
}

// readStat reads /proc/PID/stat.
func readStat(pid int) (procStat, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	defer f.Close()
	// One read: the kernel writes the line at once. Its fields up to
	// starttime fit in 1 KiB: a name of at most 64 bytes and twenty
	// numbers.
	var buf [1024]byte
	n, err := f.Read(buf[:])
	if err != nil {
		return procStat{}, err
	}
	return parseStat(buf[:n])
}

// readProcs reads the stat of every process in /proc. A process that
// ends while it is read is left out.
func readProcs() ([]procStat, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	procs := make([]procStat, 0, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		s, err := readStat(pid)
		if err != nil {
			continue
		}
		procs = append(procs, s)
	}
	return procs, nil
}
