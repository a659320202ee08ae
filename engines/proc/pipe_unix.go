//go:build unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// newPipe returns a pipe(2) between us and the engine: our end and the
// engine's; out says the engine writes to it. Go makes our end
// non-blocking, so it supports deadlines and a Close ends a blocked
// Read or Write.
func newPipe(out bool) (ours, theirs *os.File, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	if out {
		return r, w, nil
	}
	return w, r, nil
}

// isBrokenPipe reports a write to a pipe that nobody reads any more.
func isBrokenPipe(err error) bool { return errors.Is(err, syscall.EPIPE) }
