//go:build unix

package proc

// How Stop's ends read: the SIGTERM, and the SIGKILL after it.
const (
	wantTerminated = "signal: terminated"
	wantKilled     = "signal: killed"
)
