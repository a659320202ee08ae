package proc

import "time"

// The engine's stderr reaches the log at most stderrBurst lines at once and
// stderrRate lines a second after that: an engine that floods its stderr
// (measured: 23.5 MB in 10 s) must not fill the disk or push everything
// else out of a small log (gokrazy keeps the last 100 lines of a service).
// The lines beyond are read and dropped, and their count is logged when
// lines flow again or the stream ends.
const (
	stderrBurst = 100
	stderrRate  = 20
)

// lineLimiter is a token bucket over log lines: tokens refill at rate a
// second up to burst; a line takes one. Not safe for concurrent use (one
// reader owns it).
type lineLimiter struct {
	rate, burst float64
	tokens      float64
	last        time.Time
	dropped     int
}

func newLineLimiter(rate, burst float64) *lineLimiter {
	return &lineLimiter{rate: rate, burst: burst, tokens: burst}
}

// allow reports whether a line seen at now may be logged, and, when it may,
// how many lines were dropped since the last one logged.
func (l *lineLimiter) allow(now time.Time) (ok bool, dropped int) {
	if !l.last.IsZero() {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
	}
	l.last = now
	if l.tokens < 1 {
		l.dropped++
		return false, 0
	}
	l.tokens--
	dropped, l.dropped = l.dropped, 0
	return true, dropped
}
