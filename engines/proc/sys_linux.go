package proc

import (
	"errors"
	"log/slog"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// tree is the engine and its descendants (Linux). The engine leads a
// process group of its own; flipbot is their child subreaper
// ([becomeSubreaper]), so a descendant whose parent dies becomes our
// child rather than init's. [tree.members] says which processes belong to
// the engine; kill sends SIGKILL to each of them until none is left, and
// reaps those re-parented to us.
type tree struct {
	pid   int    // the engine
	pgid  int    // its process group: the same number
	start uint64 // its start time (0: unknown)
	// known are the processes seen in the engine's tree so far, by pid,
	// with their start times: still the engine's after their parent has
	// died and they have been re-parented to us.
	known map[int]uint64
	log   *slog.Logger
}

// killPause is the first wait for killed processes to exit before /proc
// is read again; it doubles up to 50 ms.
const killPause = 2 * time.Millisecond

func newTree(log *slog.Logger) (*tree, error) {
	if err := becomeSubreaper(); err != nil {
		log.Warn("engine descendants that lose their parent go to init: one that leaves the engine's process group may outlive it", "err", err)
	}
	return &tree{known: map[int]uint64{}, log: log}, nil
}

// sysProcAttr puts the engine in a new process group of its own and has
// the kernel kill it if the thread that started it ends (PR_SET_PDEATHSIG,
// prctl(2); Go's threads end only with the process).
func (t *tree) sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func (t *tree) started(pid int) error {
	t.pid, t.pgid = pid, pid
	t.log = t.log.With("pid", pid)
	if s, err := readStat(pid); err == nil {
		t.start = s.start
	}
	return nil
}

// note records the engine's descendants as they are now, so that one
// whose parent exits later (the engine leaving on its quit line, say) is
// still known as the engine's.
func (t *tree) note() {
	procs, err := readProcs()
	if err != nil {
		t.log.Warn("read the engine's descendants", "err", err)
		return
	}
	self, sid := os.Getpid(), ourSession()
	for _, p := range t.members(procs, self, sid) {
		t.known[p.pid] = p.start
	}
}

// kill reads /proc, sends SIGKILL to the engine's group and to every
// member of its tree (as [tree.members] finds them), and reads again until
// none is alive, reaping those re-parented to us; it gives up after
// killWait (a process in uninterruptible sleep dies when it wakes). The
// first reading comes before the group's kill, so that a child that left
// the group is found below its living parent. A child forked while we
// kill is found by the next reading: in the group, a child of a member,
// or re-parented to us; a killed process forks no more, so the readings
// come to an end.
func (t *tree) kill() {
	self, sid := os.Getpid(), ourSession()
	deadline := time.Now().Add(killWait)
	for round, pause := 0, killPause; ; round, pause = round+1, min(2*pause, 50*time.Millisecond) {
		procs, err := readProcs()
		if round == 0 {
			t.signalGroup(syscall.SIGKILL)
		}
		if err != nil {
			t.log.Warn("read the engine's descendants", "err", err)
			return
		}
		left := t.sweep(procs, self, sid)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.log.Error("engine descendants outlive SIGKILL", "pids", left)
			return
		}
		time.Sleep(pause)
	}
}

// sweep sends SIGKILL to every live member of the tree in procs and reaps
// those that are our zombies; it returns the members still to go: alive,
// or zombies that are about to be ours. The engine itself is killed but
// left to its os/exec.Cmd to reap.
func (t *tree) sweep(procs []procStat, self, sid int) (left []int) {
	members := t.members(procs, self, sid)
	in := make(map[int]bool, len(members))
	for _, p := range members {
		in[p.pid] = true
	}
	listed := make(map[int]bool, len(procs))
	for _, p := range procs {
		listed[p.pid] = true
	}
	for _, p := range members {
		t.known[p.pid] = p.start
		switch {
		case p.state == 'Z' && p.pid == t.pid:
			// Exited: Wait reaps it.
		case p.state == 'Z' && p.ppid == self:
			reaped, err := reap(p, self)
			if err != nil {
				t.log.Warn("reap engine descendant", "descendant", p.pid, "err", err)
			}
			if !reaped {
				left = append(left, p.pid)
			}
		case p.state == 'Z':
			// Its parent, a member too, dies and leaves it to us; or has
			// died since (and been reaped), and it is ours already. A
			// parent outside the tree (init, if we are no subreaper)
			// reaps it.
			if in[p.ppid] || !listed[p.ppid] {
				left = append(left, p.pid)
			}
		default:
			if err := unix.Kill(p.pid, unix.SIGKILL); err != nil && !errors.Is(err, unix.ESRCH) {
				t.log.Warn("kill engine descendant", "descendant", p.pid, "err", err)
			}
			if p.pid != t.pid {
				left = append(left, p.pid)
			}
		}
	}
	return left
}

// members returns the processes of procs that belong to the engine: the
// engine itself, the members of its process group, the processes noted
// earlier (same pid and start time), the children re-parented to us
// (self) from another session than ours (sid), and every descendant of
// these.
//
// A child re-parented to us has lost its link to the engine that started
// it. One in another session has left its group with setsid(2), which no
// engine leader has done (each is in our session; setsid fails for a
// group leader): it is taken for an engine's, and killed when any engine
// stops. So an engine cannot rely on a process it detaches. A program
// that starts engines through this package must not start other children
// with Setsid. A descendant that moves to a new group in our session
// (setpgid(2), job control) and loses its parent before it is noted is
// not found: it cannot be told from another engine.
func (t *tree) members(procs []procStat, self, sid int) []procStat {
	children := make(map[int][]int, len(procs))
	var queue []int
	for i, p := range procs {
		children[p.ppid] = append(children[p.ppid], i)
		if p.pid == self {
			continue
		}
		start, noted := t.known[p.pid]
		if (p.pid == t.pid && t.start != 0 && p.start == t.start) ||
			p.pgid == t.pgid ||
			(noted && start == p.start) ||
			(p.ppid == self && p.sid != sid) {
			queue = append(queue, i)
		}
	}
	seen := make(map[int]bool, len(queue))
	var out []procStat
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		p := procs[i]
		if seen[p.pid] {
			continue
		}
		seen[p.pid] = true
		out = append(out, p)
		queue = append(queue, children[p.pid]...)
	}
	return out
}

func (t *tree) release() {}

// ourSession returns our session id (getsid(2)).
func ourSession() int {
	sid, err := unix.Getsid(0)
	if err != nil {
		return -1 // cannot happen for ourselves; -1 matches no process
	}
	return sid
}
