package main

import (
	"fmt"
	"os"
)

// runAppliance runs appliance. Placeholder until its issue lands: it says so and fails.
func runAppliance(args []string) int {
	fmt.Fprintln(os.Stderr, "flipbot: appliance is not implemented yet")
	return 1
}
