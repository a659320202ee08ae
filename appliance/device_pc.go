//go:build !gokrazy

package appliance

import (
	"context"
	"time"
)

// OnDevice is true in a gokrazy build.
const OnDevice = false

// exitSignalled is ExitSignalled for this build.
const exitSignalled = ExitStopped

// DefaultPlatform returns the PC platform: pages on loopback only.
func DefaultPlatform() Platform { return pcPlatform{} }

type pcPlatform struct{}

// Model reads the device tree or DMI.
func (pcPlatform) Model() string { return pcModel() }

// PageHosts is loopback only: a PC may sit on any network.
func (pcPlatform) PageHosts() ([]string, error) { return []string{"127.0.0.1"}, nil }

// WaitForClock polls the clock (a PC has one: it returns at once).
func (pcPlatform) WaitForClock(ctx context.Context) error {
	return waitClockPolling(ctx, time.Now)
}
