package proc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	case "owner": // flipbot: start an engine that has a child, write "engine child" to args[1], exit without stopping it
		exe, _ := os.Executable()
		p, err := Start(Config{Path: exe, Args: []string{"grandchild", args[1] + ".child"}, Env: os.Environ()})
		if err != nil {
			return 4
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if b, err := os.ReadFile(args[1] + ".child"); err == nil && len(b) > 0 {
				_ = os.WriteFile(args[1], []byte(fmt.Sprintf("%d %s", p.Pid(), b)), 0o600)
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
	file := filepath.Join(t.TempDir(), "pids")
	owner := exec.Command(exe, "owner", file)
	owner.Env = append(os.Environ(), fakeEnv+"=1")
	out, err := owner.CombinedOutput()
	require.NoError(t, err, "%s", out)
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var pids []int
	for _, f := range strings.Fields(string(b)) {
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
