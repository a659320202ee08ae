package appliance

import (
	"sync"
	"time"
)

// failureLimiter rate-limits wrong pairing codes and passwords: each client
// address may fail perClient times per window, and all clients together
// global times per window (a LAN can hold many addresses). Successes do not
// reset the counts. Safe for concurrent use.
type failureLimiter struct {
	mu        sync.Mutex
	now       func() time.Time
	window    time.Duration
	perClient int
	global    int
	byClient  map[string][]time.Time
	all       []time.Time
}

func newFailureLimiter(now func() time.Time, window time.Duration, perClient, global int) *failureLimiter {
	return &failureLimiter{now: now, window: window, perClient: perClient, global: global, byClient: map[string][]time.Time{}}
}

func (l *failureLimiter) prune(ts []time.Time, now time.Time) []time.Time {
	i := 0
	for i < len(ts) && now.Sub(ts[i]) >= l.window {
		i++
	}
	return ts[i:]
}

// allowed reports whether client may try again now, and if not, how long
// to wait.
func (l *failureLimiter) allowed(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.all = l.prune(l.all, now)
	c := l.prune(l.byClient[client], now)
	if len(c) == 0 {
		delete(l.byClient, client)
	} else {
		l.byClient[client] = c
	}
	if len(c) >= l.perClient {
		return false, l.window - now.Sub(c[len(c)-l.perClient])
	}
	if len(l.all) >= l.global {
		return false, l.window - now.Sub(l.all[len(l.all)-l.global])
	}
	return true, 0
}

// fail records a failure of client and reports whether the global limit is
// now reached (the caller then changes the pairing code).
func (l *failureLimiter) fail(client string) (globalReached bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.byClient[client] = append(l.prune(l.byClient[client], now), now)
	l.all = append(l.prune(l.all, now), now)
	return len(l.all) >= l.global
}
