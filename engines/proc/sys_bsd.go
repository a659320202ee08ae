//go:build unix && !linux

package proc

import (
	"log/slog"
	"syscall"
)

// tree is the engine's process group (darwin and the BSDs): the engine
// and every descendant that has not left the group with setsid(2) or
// setpgid(2). These systems have no child subreaper, so a descendant
// that leaves the group and loses its parent is not found.
type tree struct {
	pgid int // the engine's pid, which leads the group
	log  *slog.Logger
}

func newTree(log *slog.Logger) (*tree, error) { return &tree{log: log}, nil }

// sysProcAttr puts the engine in a new process group of its own.
func (t *tree) sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

func (t *tree) started(pid int) error {
	t.pgid = pid
	t.log = t.log.With("pid", pid)
	return nil
}

// note has nothing to record: the group is all that is known.
func (t *tree) note() {}

// kill sends SIGKILL to the group.
func (t *tree) kill() { t.signalGroup(syscall.SIGKILL) }

func (t *tree) release() {}
