package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// snapshot is the process's resources at one time.
type snapshot struct {
	rssKiB, heapKiB          int64
	goroutines, fds, engines int
}

// sample reads the process's resources (RSS, file descriptors and
// children from /proc; heap in use and goroutines from the runtime).
func sample() snapshot {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := snapshot{heapKiB: int64(ms.HeapInuse >> 10), goroutines: runtime.NumGoroutine(), engines: len(engineProcs())}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		s.rssKiB = vmRSS(string(b))
	}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.fds = len(ents)
	}
	return s
}

// vmRSS returns the VmRSS line's KiB of a /proc/PID/status text, 0 when
// absent.
func vmRSS(status string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// engineProcs returns the pids of this process's live children (the
// engines: the soak starts no other process while it plays).
func engineProcs() []int {
	me := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if ppid, state, ok := parseStat(string(b)); ok && ppid == me && state != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// parseStat returns the parent pid and the state of a /proc/PID/stat text
// (the fields after the command's closing parenthesis: state, ppid, …).
func parseStat(stat string) (ppid, state string, ok bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return "", "", false
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 2 {
		return "", "", false
	}
	return f[1], f[0], true
}

// anEngine returns one of the engine processes at random, 0 when none.
func anEngine() int {
	p := engineProcs()
	if len(p) == 0 {
		return 0
	}
	return p[rand.IntN(len(p))]
}

// sampler takes the resource samples of the run: each one as a line of
// its TSV file, and the RSS and heap series for the report.
type sampler struct {
	w         io.Writer
	start     time.Time
	rss, heap []int64
}

// newSampler writes the TSV's header to w.
func newSampler(w io.Writer, start time.Time) (*sampler, error) {
	if _, err := fmt.Fprintln(w, "seconds\trss_kib\theap_kib\tgoroutines\tfds\tengines\tmatches"); err != nil {
		return nil, fmt.Errorf("samples: %w", err)
	}
	return &sampler{w: w, start: start}, nil
}

// take samples the process after a GC and writes the line, with the
// matches played so far.
func (s *sampler) take(matches int64) error {
	runtime.GC()
	return s.add(time.Since(s.start), sample(), matches)
}

// add records snapshot x taken at offset at.
func (s *sampler) add(at time.Duration, x snapshot, matches int64) error {
	s.rss = append(s.rss, x.rssKiB)
	s.heap = append(s.heap, x.heapKiB)
	_, err := fmt.Fprintf(s.w, "%.0f\t%d\t%d\t%d\t%d\t%d\t%d\n", at.Seconds(), x.rssKiB, x.heapKiB,
		x.goroutines, x.fds, x.engines, matches)
	if err != nil {
		return fmt.Errorf("samples: %w", err)
	}
	return nil
}
