package main

import (
	"context"
	"os"

	"flipbot.dev/flipbot/appliance"
)

// runAppliance runs the Raspberry Pi appliance (on a PC too, with -dir
// standing in for /perm): SIGTERM or Ctrl-C drains and exits 0, a second
// signal exits at once.
func runAppliance(args []string) int {
	ctx, stop := appliance.NotifyStop(context.Background(), os.Exit)
	defer stop()
	return appliance.Main(ctx, args, os.Getenv, os.Stderr)
}
