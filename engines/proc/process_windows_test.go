package proc

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/windows"
)

// How Stop's ends read: Windows has no signals, so both are the job's
// termination.
const (
	wantTerminated = "exit status 1"
	wantKilled     = "exit status 1"
)

// running reports whether pid is a process that has not exited
// (GetExitCodeProcess says STILL_ACTIVE).
func running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == uint32(windows.STATUS_PENDING) // STILL_ACTIVE
}

// fakeOS are the Windows behaviours of the fake engine.
func fakeOS(args []string) int {
	switch args[0] {
	case "owner": // flipbot: start an engine that has a child, print "engine child", exit without stopping it
		exe, _ := os.Executable()
		p, err := Start(Config{Path: exe, Args: []string{"grandchild"}, Env: os.Environ()})
		if err != nil {
			return 4
		}
		for l := range p.Lines() {
			if n, ok := strings.CutPrefix(l, "pid "); ok {
				fmt.Println(p.Pid(), n)
				return 0 // the engine is never stopped
			}
		}
		return 5
	}
	return 2
}

// When flipbot exits without stopping its engine, the system closes the
// job's handle, and the job kills the engine's child
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE).
func TestJobEndsWithUs(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	owner := exec.Command(exe, "owner")
	owner.Env = append(os.Environ(), fakeEnv+"=1")
	out, err := owner.Output()
	require.NoError(t, err, "%s", out)
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	require.Len(t, pids, 2)
	for _, pid := range pids {
		require.Eventually(t, func() bool { return !running(pid) }, 5*time.Second, 10*time.Millisecond,
			"process %d outlived the process that owned its job", pid)
	}
}
