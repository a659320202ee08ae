package proc

import (
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the child subreaper of its
// descendants (prctl(2) PR_SET_CHILD_SUBREAPER, Linux 3.4): a descendant
// whose parent dies is re-parented to us instead of to init, so that an
// engine's child that left its process group (setsid) and lost its parent
// can still be found, killed and reaped (see [tree.members]). The
// attribute belongs to the process, not to one engine, and stays set; the
// Once only keeps the first engine's Start from being repeated by every
// other. It is called by the first Start, so that a program that starts
// no engine is not changed.
var becomeSubreaper = sync.OnceValue(func() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_CHILD_SUBREAPER: %w", err)
	}
	return nil
})

// reap waits for the zombie s, a process re-parented to us (wait4(2)
// with WNOHANG), once /proc still shows it as that zombie and ours: a pid
// is never waited for on a stale reading, so a child of ours that some
// os/exec.Cmd waits for is never taken from it. It reports false when s
// is not yet to be had: /proc shows a process as a zombie when its main
// thread has exited, and wait4 has it only after its last thread.
func reap(s procStat, self int) (bool, error) {
	now, err := readStat(s.pid)
	if err != nil || now.start != s.start || now.state != 'Z' || now.ppid != self {
		return true, nil // gone, or no longer the zombie we saw
	}
	var ws unix.WaitStatus
	pid, err := unix.Wait4(s.pid, &ws, unix.WNOHANG, nil)
	switch {
	case errors.Is(err, unix.ECHILD):
		return true, nil // reaped by a concurrent sweep
	case err != nil:
		return false, fmt.Errorf("wait4 %d: %w", s.pid, err)
	}
	return pid == s.pid, nil
}
