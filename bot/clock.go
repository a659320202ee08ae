package bot

import "time"

// The bot reads the time and starts its timers through Options.Clock (an
// internal/clock.Clock, the system's unless a test injects the fake of
// internal/clock/clocktest): polls and their floor, the stream's backoff,
// the drains, the status line, the probes of a failing engine, the waits
// for an engine's answer and its grace, the clock arithmetic of moves.
// Only what it hands to an engine is on the system clock, since engines
// measure against it: a request's At, and the deadline of the engine's
// context.

// remainingBoundMS bounds a computed clock, in milliseconds, before it
// becomes a Duration: the checks allow timestamps up to about 9e15 ms,
// whose differences would overflow the nanoseconds of a Duration.
const remainingBoundMS = 24 * 60 * 60 * 1000

// Remaining returns the mover's remaining time on a leg, as the spec
// computes it: clocks_ms[colour−1] − (server_now_ms − turn_started_ms),
// less the local time elapsed since the server's answer arrived
// (sinceArrival). The result may be negative; it is clamped to a day either
// way, in milliseconds, before any conversion.
func Remaining(clockMS float64, serverNowMS, turnStartedMS int64, sinceArrival time.Duration) time.Duration {
	used := serverNowMS - turnStartedMS
	if used < 0 {
		// A turn that started "after" now is a server clock oddity: count
		// nothing rather than credit time.
		used = 0
	}
	remMS := min(max(clockMS-float64(used), -remainingBoundMS), remainingBoundMS)
	return time.Duration(remMS*float64(time.Millisecond)) - sinceArrival
}
