// Package proc supervises one external engine process: it starts the
// program in a process tree of its own, writes lines to its stdin,
// delivers the lines of its stdout on a channel, sends its stderr to a
// [log/slog] logger, and stops it with its whole tree: a quit line and
// the end of its stdin, then SIGTERM (Unix only), then the kill, each
// after a grace period. The process gets an environment built from an
// allow-list of ours ([EngineEnv]: PATH, HOME, locale, …), never the
// whole of it: the bot token (FS_BOT_TOKEN) and any other secret of the
// parent stay out of engines. FLIPBOT_ENGINE_ENV lists further variables
// to pass. An engine that cannot start, or fails within seconds of its
// start, is told which of its own variables the filter dropped (names
// only, never one that looks secret) and how to pass them.
//
// The engine's tree is what the OS lets us hold:
//
//   - Linux: a new process group led by the engine, and everything that
//     descends from it. The first Start makes flipbot the child subreaper
//     of its descendants, so that one whose parent dies is re-parented to
//     flipbot, not to init. The kill sends SIGKILL to the group, then to
//     each process that /proc shows in the engine's tree (those in its
//     group, those seen descending from it, and any child of ours that
//     left our session with setsid), until none is left, and reaps those
//     re-parented to us. The kernel kills the engine itself if flipbot
//     dies (PR_SET_PDEATHSIG); its descendants it does not. A program
//     that starts engines with this package must not start other
//     children in a session of their own: they would be taken for an
//     engine's.
//   - darwin and the BSDs: a new process group led by the engine; SIGTERM
//     and SIGKILL go to the group. A descendant that leaves the group
//     escapes.
//   - Windows: a Job Object. The engine starts suspended, is put in the
//     job and only then runs, so every process it starts is in the job
//     too; the kill terminates the job, and so does flipbot's exit, however
//     it comes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE). There is no SIGTERM:
//     the end of stdin is the engine's notice.
//
// It also splits a command string into words the way a POSIX shell does for
// plain words and quotes ([SplitCommand]), without running a shell.
//
// Files:
//
//	process.go          Start, Send, Lines, Stop and Kill
//	slot.go             Slot, the restartable process an adapter talks to
//	env.go              EngineEnv, the engine's environment; the note on what it lacks
//	split.go            SplitCommand
//	stderr.go           the engine's stderr to the log, within a budget that
//	                    the engines of one logger share (WithStderrBudget)
//	memory.go           Memory, from /proc (Linux)
//	sys_unix.go         SIGTERM and SIGKILL to the process group (Unix)
//	sys_linux.go        the tree on Linux: which processes are the engine's, their kill
//	procfs_linux.go     reading /proc/PID/stat
//	subreaper_linux.go  PR_SET_CHILD_SUBREAPER, and the reaping of orphans
//	sys_bsd.go          the tree on darwin and the BSDs
//	sys_windows.go      the tree on Windows: the Job Object
//	pipe_unix.go        the pipes to the engine: pipe(2)
//	pipe_windows.go     the pipes to the engine: overlapped named pipes that
//	                    only our own user may open
//
// It imports the standard library, golang.org/x/sys/windows, and of the
// module only the leaf internal/logagg (the dropped stderr lines counted
// per minute). One test
// (env_test.go) imports config, to pin the token variable kept out of
// engines to config's TokenEnv: an exception to arrows down (config sits
// above the engines), test-only, recorded in internal/archtest.
package proc
