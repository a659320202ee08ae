//go:build !gokrazy

package appliance

import (
	"context"
	"time"
)

// OnDevice is true in a gokrazy build.
const OnDevice = false

// DefaultPlatform returns the PC platform: pages on loopback only.
func DefaultPlatform() Platform { return pcPlatform{} }

type pcPlatform struct{}

func (pcPlatform) Model() string { return pcModel() }

func (pcPlatform) PageHosts() ([]string, error) { return []string{"127.0.0.1"}, nil }

func (pcPlatform) WaitForClock(ctx context.Context) error {
	return waitClockPolling(ctx, time.Now)
}
