package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"flipbot.dev/flipbot/engines/internal/enginetest"
)

func TestTreeMembers(t *testing.T) {
	const self, sid = 100, 50
	procs := []procStat{
		{pid: self, ppid: 90, pgid: sid, sid: sid, state: 'S', start: 1},
		{pid: 200, ppid: self, pgid: 200, sid: sid, state: 'S', start: 1000}, // the engine
		{pid: 201, ppid: 200, pgid: 200, sid: sid, state: 'S', start: 1001},  // its child
		{pid: 202, ppid: 200, pgid: 202, sid: 202, state: 'S', start: 1002},  // its child, setsid
		{pid: 203, ppid: 202, pgid: 202, sid: 202, state: 'Z', start: 1003},  // whose child is a zombie
		{pid: 210, ppid: self, pgid: 200, sid: sid, state: 'S', start: 1010}, // orphan in the engine's group
		{pid: 300, ppid: self, pgid: 300, sid: 300, state: 'S', start: 3000}, // orphan that left with setsid
		{pid: 301, ppid: 300, pgid: 300, sid: 300, state: 'S', start: 3001},  // and its child
		{pid: 310, ppid: self, pgid: 310, sid: 310, state: 'Z', start: 3100}, // the same, a zombie now
		{pid: 400, ppid: self, pgid: 400, sid: sid, state: 'S', start: 4000}, // orphan in a new group of our session
		{pid: 500, ppid: self, pgid: 500, sid: sid, state: 'S', start: 5000}, // another engine
		{pid: 501, ppid: 500, pgid: 500, sid: sid, state: 'S', start: 5001},  // its child
		{pid: 502, ppid: 500, pgid: 502, sid: 502, state: 'S', start: 5002},  // its child, setsid, parent alive
		{pid: 600, ppid: 1, pgid: 600, sid: 600, state: 'S', start: 6000},    // not ours
		{pid: 700, ppid: self, pgid: sid, sid: sid, state: 'S', start: 7000}, // our own other child
	}
	tests := []struct {
		name  string
		tree  tree
		procs []procStat
		want  []int
	}{
		{"the engine's tree and the setsid orphans",
			tree{pid: 200, pgid: 200, start: 1000}, procs,
			[]int{200, 201, 202, 203, 210, 300, 301, 310}},
		{"a noted process is the engine's after its parent died",
			tree{pid: 200, pgid: 200, start: 1000, known: map[int]uint64{400: 4000}}, procs,
			[]int{200, 201, 202, 203, 210, 300, 301, 310, 400}},
		{"a noted pid now used by another process is not",
			tree{pid: 200, pgid: 200, start: 1000, known: map[int]uint64{400: 3999}}, procs,
			[]int{200, 201, 202, 203, 210, 300, 301, 310}},
		{"the engine gone, its children are still found",
			tree{pid: 200, pgid: 200, start: 1000, known: map[int]uint64{202: 1002}},
			[]procStat{
				{pid: self, ppid: 90, pgid: sid, sid: sid, state: 'S', start: 1},
				{pid: 201, ppid: self, pgid: 200, sid: sid, state: 'S', start: 1001},
				{pid: 202, ppid: self, pgid: 202, sid: 202, state: 'S', start: 1002},
				{pid: 400, ppid: self, pgid: 400, sid: sid, state: 'S', start: 4000},
				{pid: 500, ppid: self, pgid: 500, sid: sid, state: 'S', start: 5000},
			},
			[]int{201, 202}},
		{"the engine's pid taken by another process",
			tree{pid: 200, pgid: 200, start: 1000},
			[]procStat{{pid: 200, ppid: self, pgid: 200, sid: sid, state: 'S', start: 9999}},
			[]int{200}}, // the group says so: a group id is not reused while the group has members
		{"the engine's pid, of another process in another group",
			tree{pid: 200, pgid: 200, start: 1000},
			[]procStat{{pid: 200, ppid: 1, pgid: 77, sid: 77, state: 'S', start: 9999}},
			nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.tree.known == nil {
				tc.tree.known = map[int]uint64{}
			}
			var got []int
			for _, p := range tc.tree.members(tc.procs, self, sid) {
				got = append(got, p.pid)
			}
			assert.ElementsMatch(t, tc.want, got)
		})
	}
}

func TestStartMakesUsTheSubreaper(t *testing.T) {
	p := start(t, nil, Config{}, "echo")
	p.Kill()
	var on int32
	require.NoError(t, unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&on)), 0, 0, 0))
	assert.Equal(t, int32(1), on)
}

// escapees reads the "label pid" lines the escape fake writes.
func escapees(t *testing.T, file string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		label, n, ok := strings.Cut(l, " ")
		require.True(t, ok, l)
		pid, err := strconv.Atoi(n)
		require.NoError(t, err, l)
		out[label] = pid
	}
	return out
}

// cleanUp kills and reaps what a failed test left.
func cleanUp(t *testing.T, pids map[string]int) {
	t.Cleanup(func() {
		for _, pid := range pids {
			if exists(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				_, _ = syscall.Wait4(pid, nil, 0, nil) // ECHILD when not ours
			}
		}
	})
}

func TestEscapedDescendantsDie(t *testing.T) {
	all := []string{"setsid", "setsid-parent", "setsid-child", "setpgid", "double-fork"}
	tests := []struct {
		name string
		end  func(*Process)
		dead []string // must be gone (and reaped) when end returns
	}{
		{"kill", (*Process).Kill, all},
		{"stop", (*Process).Stop, all},
		{"after the engine exited", func(p *Process) {
			require.NoError(t, p.Send("quit"))
			<-p.Done()
			p.Kill() // as Slot does when it finds its engine dead
		}, []string{"setsid", "setsid-parent", "setsid-child", "double-fork"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			enginetest.NoLeak(t)
			file := filepath.Join(t.TempDir(), "pids")
			p := start(t, nil, Config{QuitLine: "quit", QuitGrace: time.Second}, "escape", file)
			require.NoError(t, p.Send("hi"))
			got, _ := next(t, p)
			require.Equal(t, "hi", got, "the escape fake has written its pids")
			pids := escapees(t, file)
			cleanUp(t, pids)
			require.Len(t, pids, len(all))
			for label, pid := range pids {
				require.True(t, running(pid), "%s %d runs before the end", label, pid)
			}
			tc.end(p)
			for _, label := range tc.dead {
				pid := pids[label]
				s, _ := readStat(pid)
				assert.False(t, exists(pid), "%s %d is gone and reaped: %+v", label, pid, s)
			}
		})
	}
}

// The measured case: a shell engine that leaves `setsid sleep 300`
// processes, directly and through a subshell that exits.
func TestShellEngineLeavesNoSleeper(t *testing.T) {
	for _, c := range []string{"sh", "setsid", "sleep"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("SKIPPED: %s not found", c)
		}
	}
	file := filepath.Join(t.TempDir(), "pids")
	const script = `: > "$1"
sleeper() { setsid sh -c 'echo $$ >> "$1"; exec sleep 300' sh "$1" & }
for i in 1 2 3; do sleeper "$1"; done
( sleeper "$1" )
while [ "$(wc -l < "$1")" -lt 4 ]; do sleep 0.01; done
echo ready
exec cat`
	p, err := Start(Config{Path: "sh", Args: []string{"-c", script, "sh", file}})
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	got, _ := next(t, p)
	require.Equal(t, "ready", got)
	pids := map[string]int{}
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	for i, l := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(l)
		require.NoError(t, err)
		pids[strconv.Itoa(i)] = pid
	}
	cleanUp(t, pids)
	require.Len(t, pids, 4)
	for _, pid := range pids {
		require.True(t, running(pid), "sleep %d runs before the end", pid)
	}
	p.Stop() // cat ends with its stdin: the sleepers are orphans now
	for _, pid := range pids {
		assert.False(t, exists(pid), "sleep %d is gone and reaped", pid)
	}
}

func TestKillSparesOtherProcesses(t *testing.T) {
	enginetest.NoLeak(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	// A child of ours that is not an engine, waited for by its own Cmd.
	other := exec.Command(exe, "ignorequit")
	other.Env = append(os.Environ(), fakeEnv+"=1")
	require.NoError(t, other.Start())
	defer func() { _ = other.Process.Kill(); _ = other.Wait() }()
	b := start(t, nil, Config{}, "echo")
	require.NoError(t, b.Send("before"))
	got, _ := next(t, b)
	require.Equal(t, "before", got)

	a := start(t, nil, Config{}, "escape", filepath.Join(t.TempDir(), "pids"))
	require.NoError(t, a.Send("hi"))
	next(t, a)
	a.Kill()

	require.NoError(t, b.Send("after"), "the other engine lives")
	got, _ = next(t, b)
	assert.Equal(t, "after", got)
	assert.True(t, running(other.Process.Pid), "our other child lives")
	require.NoError(t, other.Process.Kill())
	err = other.Wait()
	require.Error(t, err)
	assert.Equal(t, "signal: killed", err.Error(), "its status is its Cmd's, not taken by a sweep")
}
