//go:build unix

package proc

import (
	"errors"
	"syscall"
)

// terminate asks the engine's process group to end: SIGTERM to the group
// (kill(2) with a negative pid).
func (t *tree) terminate() { t.signalGroup(syscall.SIGTERM) }

// signalGroup sends sig to the engine's process group (kill(2) with the
// negated group id); a group that is gone is not an error.
func (t *tree) signalGroup(sig syscall.Signal) {
	if err := syscall.Kill(-t.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.log.Warn("signal engine group", "signal", sig.String(), "err", err)
	}
}
