package web

import (
	"net/netip"
	"sync"
	"time"
)

// failureLimiter rate-limits wrong pairing codes and passwords per client:
// each client may fail perClient times per window. A try counts from the
// moment it begins, before its body is read, so that slow or concurrent
// requests cannot all be checked against a budget that none of them has
// used yet; a try that turns out right (or never guessed: no password sent,
// a failed CSRF check) is given back.
//
// All clients together are not refused after a number of failures: that
// would lock the owner out with the attacker (a LAN has many addresses).
// Instead the limiter counts every client's failures in the window, and
// the caller makes the secret harder when global of them have come (a
// longer pairing code; see Handler.serveSetup and SECURITY.md). Safe for
// concurrent use.
type failureLimiter struct {
	mu        sync.Mutex
	now       func() time.Time
	window    time.Duration
	perClient int
	global    int
	seq       uint64
	byClient  map[string][]limitEntry
	all       []limitEntry
}

// limitEntry is one failure, or one try in progress.
type limitEntry struct {
	at time.Time
	id uint64
}

func newFailureLimiter(now func() time.Time, window time.Duration, perClient, global int) *failureLimiter {
	return &failureLimiter{now: now, window: window, perClient: perClient, global: global, byClient: map[string][]limitEntry{}}
}

func (l *failureLimiter) prune(ts []limitEntry, now time.Time) []limitEntry {
	i := 0
	for i < len(ts) && now.Sub(ts[i].at) >= l.window {
		i++
	}
	return ts[i:]
}

// limiterKey is the client key the limits apply to: an IPv4 address
// alone (an IPv4-mapped IPv6 address as its IPv4 address), or the /64
// network of an IPv6 address, link-local ones included, with its zone
// dropped (one host may hold all of a /64, and the zone names the
// device's own interface, not the client). A client that is not an
// address (never so for a TCP peer) is its own key.
func limiterKey(client string) string {
	a, err := netip.ParseAddr(client)
	if err != nil {
		return client
	}
	return ClientKey(a)
}

// ClientKey is the key of a client address that the pages' limits count
// by: the rate limits here, and the appliance's share of the page
// connections. An IPv4 address alone (an IPv4-mapped IPv6 address as its
// IPv4 address), or the /64 network of an IPv6 address, link-local ones
// included, with its zone dropped.
func ClientKey(a netip.Addr) string {
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return a.String() // not reached: every IPv6 address has a /64
	}
	return p.String()
}

// limitTry is one try counted by a failureLimiter: call failed or ok once.
type limitTry struct {
	l      *failureLimiter
	client string
	id     uint64
}

// begin counts a try of client at once and returns it, or nil and how
// long to wait when client has used its budget (failures and tries in
// progress).
func (l *failureLimiter) begin(client string) (*limitTry, time.Duration) {
	client = limiterKey(client)
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.all = l.prune(l.all, now)
	c := l.prune(l.byClient[client], now)
	if len(c) >= l.perClient {
		l.byClient[client] = c
		return nil, l.window - now.Sub(c[len(c)-l.perClient].at)
	}
	l.seq++
	e := limitEntry{at: now, id: l.seq}
	l.byClient[client] = append(c, e)
	l.all = append(l.all, e)
	return &limitTry{l: l, client: client, id: e.id}, 0
}

// failed keeps the try as a failure and reports whether global failures
// of all clients have now come within the window; the global count then
// starts again.
func (t *limitTry) failed() (globalReached bool) {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = l.prune(l.all, l.now())
	if len(l.all) >= l.global {
		l.all = nil
		return true
	}
	return false
}

// ok gives the try back: it was right, or it guessed nothing.
func (t *limitTry) ok() {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	drop := func(es []limitEntry) []limitEntry {
		for i, e := range es {
			if e.id == t.id {
				return append(es[:i:i], es[i+1:]...)
			}
		}
		return es
	}
	l.all = drop(l.all)
	if c := drop(l.byClient[t.client]); len(c) > 0 {
		l.byClient[t.client] = c
	} else {
		delete(l.byClient, t.client)
	}
}
