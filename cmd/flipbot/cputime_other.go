//go:build !unix

package main

import "time"

// processCPU reports the process's CPU time as unknown here.
func processCPU() (time.Duration, bool) { return 0, false }
