package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVMRSS(t *testing.T) {
	assert.Equal(t, int64(20932), vmRSS("Name:\tsoak\nVmPeak:\t  999 kB\nVmRSS:\t   20932 kB\nThreads:\t9\n"))
	assert.Zero(t, vmRSS("Name:\tsoak\n"))
}

func TestParseStat(t *testing.T) {
	ppid, state, ok := parseStat("4242 (flip engine (x)) S 4100 4242 4100 0 -1")
	require.True(t, ok)
	assert.Equal(t, "4100", ppid, "after the last parenthesis")
	assert.Equal(t, "S", state)
	_, _, ok = parseStat("garbage")
	assert.False(t, ok)
}

func TestEngineProcsAndSample(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	before := sample()
	assert.Positive(t, before.rssKiB)
	assert.Positive(t, before.heapKiB)
	assert.Positive(t, before.fds)
	assert.Positive(t, before.goroutines)
	cmd := exec.Command("sleep", "30")
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	assert.Contains(t, engineProcs(), cmd.Process.Pid)
	assert.Equal(t, cmd.Process.Pid, anEngine(), "the only child")
	assert.Equal(t, before.engines+1, sample().engines)
	require.NoError(t, cmd.Process.Kill())
	require.Eventually(t, func() bool { _ = cmd.Wait(); return len(engineProcs()) == before.engines },
		5*time.Second, 10*time.Millisecond, "a reaped child is gone")
}

func TestSamplerWritesTheTSV(t *testing.T) {
	var b strings.Builder
	s, err := newSampler(&b, time.Now())
	require.NoError(t, err)
	require.NoError(t, s.add(90*time.Second, snapshot{rssKiB: 1, heapKiB: 2, goroutines: 3, fds: 4, engines: 5}, 6))
	require.NoError(t, s.take(7))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	assert.Equal(t, "seconds\trss_kib\theap_kib\tgoroutines\tfds\tengines\tmatches", lines[0])
	assert.Equal(t, "90\t1\t2\t3\t4\t5\t6", lines[1])
	assert.True(t, strings.HasSuffix(lines[2], "\t7"), lines[2])
	assert.Equal(t, []int64{1, s.rss[1]}, s.rss)
	assert.Equal(t, []int64{2, s.heap[1]}, s.heap)
}
