package bot

import "time"

// Clock is the bot's time source. Tests inject a fake one to check clock
// arithmetic; the default is the system clock.
type Clock interface {
	Now() time.Time
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// Remaining returns the mover's remaining time on a leg, as the spec
// computes it: clocks_ms[colour−1] − (server_now_ms − turn_started_ms),
// less the local time elapsed since the server's answer arrived
// (sinceArrival). The result may be negative.
func Remaining(clockMS float64, serverNowMS, turnStartedMS int64, sinceArrival time.Duration) time.Duration {
	used := serverNowMS - turnStartedMS
	if used < 0 {
		// A turn that started "after" now is a server clock oddity: count
		// nothing rather than credit time.
		used = 0
	}
	rem := time.Duration(clockMS*float64(time.Millisecond)) - time.Duration(used)*time.Millisecond
	return rem - sinceArrival
}
