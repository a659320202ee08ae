package proc

import (
	"errors"
	"fmt"
	"log/slog"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// killedExitCode is the exit code of the processes of a job we terminate.
const killedExitCode = 1

// tree is the engine's Job Object (Windows): the engine and every process
// it starts, which Windows puts in the same job, with no way out (we do
// not allow breakaway). Terminating the job ends them all; so does the
// closing of its last handle (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE), which
// the system does when flipbot exits, however it exits.
type tree struct {
	job windows.Handle
	log *slog.Logger
}

// newTree creates the job (CreateJobObjectW) and sets it to kill its
// processes when its last handle closes (SetInformationJobObject,
// JOBOBJECT_EXTENDED_LIMIT_INFORMATION). The handle is not inheritable,
// so engines cannot keep the job alive.
func newTree(log *slog.Logger) (*tree, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("CreateJobObject: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return nil, fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return &tree{job: job, log: log}, nil
}

// sysProcAttr starts the engine suspended (CREATE_SUSPENDED), so that it
// is in the job before it can start a process of its own, and in a new
// console process group (CREATE_NEW_PROCESS_GROUP; Process Creation
// Flags), so that a Ctrl+C meant for flipbot does not reach it: flipbot
// stops it, as on Unix, where it has a process group of its own.
func (t *tree) sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
}

// started puts the suspended engine into the job (AssignProcessToJobObject)
// and lets it run (ResumeThread on its one thread).
func (t *tree) started(pid int) error {
	t.log = t.log.With("pid", pid)
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(t.job, h); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return resumeProcess(pid)
}

// resumeProcess resumes the threads of the suspended process pid: those
// a thread snapshot lists for it (CreateToolhelp32Snapshot with
// TH32CS_SNAPTHREAD, Thread32First/Thread32Next; "Traversing the Thread
// List"), each with OpenThread and ResumeThread.
func resumeProcess(pid int) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("CreateToolhelp32Snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("OpenThread: %w", err)
		}
		_, err = windows.ResumeThread(th)
		_ = windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("ResumeThread: %w", err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("Thread32Next: %w", err)
	}
	if resumed == 0 {
		return errors.New("resume engine: no thread found")
	}
	return nil
}

// note has nothing to record: the job holds every descendant.
func (t *tree) note() {}

// terminate does nothing: Windows has no SIGTERM. The end of its stdin
// was the engine's notice; it gets the second grace as well.
func (t *tree) terminate() {}

// kill ends every process in the job (TerminateJobObject).
func (t *tree) kill() {
	if err := windows.TerminateJobObject(t.job, killedExitCode); err != nil {
		t.log.Warn("terminate engine job", "err", err)
	}
}

// release closes the job; were a process still in it, this would end it.
func (t *tree) release() {
	if t.job != 0 {
		_ = windows.CloseHandle(t.job)
		t.job = 0
	}
}
