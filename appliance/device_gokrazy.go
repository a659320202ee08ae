//go:build gokrazy

package appliance

import (
	"context"
	"fmt"

	"github.com/gokrazy/gokrazy"
)

// OnDevice is true in a gokrazy build.
const OnDevice = true

// exitSignalled is ExitSignalled for this build.
const exitSignalled = ExitRetry

// DefaultPlatform returns the gokrazy platform.
func DefaultPlatform() Platform { return gokrazyPlatform{} }

type gokrazyPlatform struct{}

// Model is gokrazy.Model: the device tree's model string.
func (gokrazyPlatform) Model() string { return gokrazy.Model() }

// PageHosts binds the pages to private addresses only, like gokrazy's own
// web UI, so that a device on a public address does not offer setup to the
// internet.
func (gokrazyPlatform) PageHosts() ([]string, error) {
	h, err := gokrazy.PrivateInterfaceAddrs()
	if err != nil {
		return nil, fmt.Errorf("private interface addresses: %w", err)
	}
	return h, nil
}

// WaitForClock waits in gokrazy.WaitForClock; it cannot be cancelled, so on
// ctx's end it is left behind (it only sleeps and reads the clock).
func (gokrazyPlatform) WaitForClock(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		gokrazy.WaitForClock()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for clock: %w", ctx.Err())
	}
}
