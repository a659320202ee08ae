package main

import (
	"fmt"
	"os"
)

// runChallenge runs challenge. Placeholder until its issue lands: it says so and fails.
func runChallenge(args []string) int {
	fmt.Fprintln(os.Stderr, "flipbot: challenge is not implemented yet")
	return 1
}
