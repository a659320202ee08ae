package proc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"unsafe"

	"golang.org/x/sys/windows"
)

// pipeBuffer is the size of each pipe's buffer, as a Linux pipe's.
const pipeBuffer = 64 << 10

// newPipe returns a pipe between us and the engine: our end and the
// engine's; out says the engine writes to it. Our end is overlapped, the
// engine's an ordinary synchronous handle: an anonymous pipe (os.Pipe,
// CreatePipe) does not support overlapped I/O ("Anonymous Pipe
// Operations"), and without it Go can neither bound a write with a
// deadline (Send's WriteTimeout) nor end a blocked read with Close. So it
// is a named pipe (CreateNamedPipeW with FILE_FLAG_OVERLAPPED) of one
// instance under a random name, which refuses remote clients and which
// we open ourselves at once (CreateFileW) for the engine's end. Its
// security descriptor lets only our own user open it (ownerOnly): the
// default one lets Everyone read it, and a local user who opened it
// between our create and open could read the positions or keep the
// engine from starting.
func newPipe(out bool) (ours, theirs *os.File, err error) {
	sa, err := ownerOnly()
	if err != nil {
		return nil, nil, err
	}
	var rnd [16]byte
	_, _ = rand.Read(rnd[:]) // crypto/rand.Read does not fail
	name := `\\.\pipe\flipbot-engine-` + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(rnd[:])
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, nil, err
	}
	var access, theirAccess uint32 = windows.PIPE_ACCESS_OUTBOUND, windows.GENERIC_READ
	if out {
		access, theirAccess = windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE|windows.FILE_READ_ATTRIBUTES
	}
	h, err := windows.CreateNamedPipe(name16,
		access|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, pipeBuffer, pipeBuffer, 0, sa)
	if err != nil {
		return nil, nil, fmt.Errorf("CreateNamedPipe: %w", err)
	}
	c, err := windows.CreateFile(name16, theirAccess, 0, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		_ = windows.CloseHandle(h)
		return nil, nil, fmt.Errorf("open named pipe: %w", err)
	}
	// The client's open connects the pipe; ConnectNamedPipe would only
	// say so (ERROR_PIPE_CONNECTED).
	return os.NewFile(uintptr(h), name), os.NewFile(uintptr(c), name), nil
}

// ownerOnly returns the security attributes of a pipe that only the user
// we run as may open: a protected DACL (nothing inherited) with one entry,
// all access for that user's SID; not inherited by child processes.
func ownerOnly() (*windows.SecurityAttributes, error) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("pipe security: our user: %w", err)
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + user.User.Sid.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("pipe security: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	return sa, nil
}

// isBrokenPipe reports a write to a pipe that nobody reads any more:
// ERROR_BROKEN_PIPE, or ERROR_NO_DATA when the pipe is being closed.
func isBrokenPipe(err error) bool {
	return errors.Is(err, windows.ERROR_BROKEN_PIPE) || errors.Is(err, windows.ERROR_NO_DATA)
}
