package main

import (
	"fmt"
	"os"
)

// runBot runs the connector. Placeholder until its issue lands: it says so and fails.
func runBot(args []string) int {
	fmt.Fprintln(os.Stderr, "flipbot: the connector is not implemented yet")
	return 1
}
