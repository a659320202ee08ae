package main

import (
	"fmt"
	"os"
)

// runDisplayPreview runs display-preview. Placeholder until its issue lands: it says so and fails.
func runDisplayPreview(args []string) int {
	fmt.Fprintln(os.Stderr, "flipbot: display-preview is not implemented yet")
	return 1
}
