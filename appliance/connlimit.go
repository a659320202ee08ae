package appliance

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/web"
)

// DefaultMaxPageConns is how many connections each page listener serves
// at once. Browsers open about six per page. Connections beyond the limit
// cost the process a descriptor only while they wait in the listener's
// short queue (pageConnQueue): the bot's own connections to FlipSight, its
// engines and its files keep theirs (4,200 held page connections starved
// them under a limit of 4,096 descriptors before).
const DefaultMaxPageConns = 64

// The share of the limit one client may hold (a client as the pages' rate
// limits count it, web.ClientKey: an IPv4 address, an IPv6 /64): a
// quarter. Four browsers' worth of connections is far more than one
// person's tabs open, and it takes four clients to fill the limit; past
// that, idle connections are closed to make room (limitListener).
const pageConnShareDivisor = 4

// pageConnIdleGrace is how long a connection may stay silent after it
// opened before it counts as idle and may be closed to make room: a
// browser sends its request within milliseconds, and a connection that
// has sent nothing for a second is held, not used.
const pageConnIdleGrace = time.Second

// pageConnWait bounds how long a connection waits in the queue for a slot
// before it is closed.
const pageConnWait = 10 * time.Second

// limitListener serves at most max connections at once, at most perClient
// of them (and of those waiting) from one client, so that nobody can hold
// the pages: the owner must reach them however many connections others
// hold and reopen. It accepts every connection the kernel has at once, so
// that the kernel's accept queue never fills, and then
//
//   - closes it at once (a reset, no descriptor kept) when its client
//     already holds perClient connections;
//   - serves it when a slot is free;
//   - when the limit is full, serves it at once in the place of an idle
//     connection (http.StateIdle, a keep-alive between requests, or one
//     not yet used) of the client holding the most, if that client holds
//     at least two more than its own (unfairLocked): the owner, holding
//     few, gets a slot from whoever holds many, and no such swap undoes
//     another;
//   - else queues it, and closes an idle connection to make room (one
//     between requests, or one that has sent nothing for
//     pageConnIdleGrace, the biggest client's oldest). A full queue makes
//     way the same way (the biggest client's newest waiting is reset);
//     beyond, the connection is reset at once. A connection that waits
//     pageConnWait is closed.
//
// Requests in progress are never cut; a browser opens a new connection
// when an idle one is closed under it. The server must report connection
// states to connState (http.Server.ConnState). golang.org/x/net/netutil's
// LimitListener only waits for a slot, leaving the rest in the kernel's
// queue; the appliance keeps to the standard library.
type limitListener struct {
	inner     net.Listener
	max       int
	perClient int
	queue     int
	grace     time.Duration
	wait      time.Duration
	now       func() time.Time

	ready chan *limitConn // served connections not yet taken by Accept
	done  chan struct{}   // closed by Close
	// failed is closed when the inner listener fails; err says why.
	failed    chan struct{}
	err       error
	closeOnce sync.Once

	mu       sync.Mutex
	open     map[*limitConn]struct{} // served, not yet closed
	waiting  []*limitConn
	byClient map[string]int // open and waiting per client
	// lookAgain says a makeRoom is due after the grace.
	lookAgain bool
}

// newLimitListener returns l serving at most limit connections at once, a
// quarter of them (at least one) per client, with a queue of a quarter
// (at least one) more.
func newLimitListener(l net.Listener, limit int) *limitListener {
	ll := limitListenerFor(l, limit)
	ll.start()
	return ll
}

// limitListenerFor is newLimitListener not yet accepting (tests change
// its settings before start).
func limitListenerFor(l net.Listener, limit int) *limitListener {
	limit = max(1, limit)
	share := (limit + pageConnShareDivisor - 1) / pageConnShareDivisor
	return &limitListener{
		inner:     l,
		max:       limit,
		perClient: share,
		queue:     share,
		grace:     pageConnIdleGrace,
		wait:      pageConnWait,
		now:       time.Now,
		ready:     make(chan *limitConn, limit),
		done:      make(chan struct{}),
		failed:    make(chan struct{}),
		open:      map[*limitConn]struct{}{},
		byClient:  map[string]int{},
	}
}

// start begins taking connections off the kernel's queue.
func (l *limitListener) start() { go l.acceptLoop() }

// Addr returns the inner listener's address.
func (l *limitListener) Addr() net.Addr { return l.inner.Addr() }

// Accept returns the next connection to serve.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ready:
		l.mu.Lock()
		c.taken = true
		l.mu.Unlock()
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-l.failed:
		return nil, l.err
	}
}

// Close closes the listener and the connections waiting for a slot; the
// served ones are the server's to close.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	err := l.inner.Close()
	l.mu.Lock()
	waiting := l.waiting
	for _, c := range waiting {
		l.removeWaitingLocked(c)
	}
	l.mu.Unlock()
	for _, c := range waiting {
		refuse(c.Conn)
	}
	for {
		select {
		case c := <-l.ready: // served, never taken by the server
			c.Close()
		default:
			return err
		}
	}
}

// acceptLoop takes every connection off the kernel's queue and admits,
// queues or refuses it.
func (l *limitListener) acceptLoop() {
	var backoff time.Duration
	for {
		c, err := l.inner.Accept()
		if err != nil {
			if isTemporary(err) {
				// Out of descriptors, say: try again shortly, as
				// http.Server does.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				select {
				case <-time.After(backoff):
					continue
				case <-l.done:
					return
				}
			}
			l.err = err
			close(l.failed)
			return
		}
		backoff = 0
		l.admit(c)
	}
}

// isTemporary reports an accept error worth retrying (EMFILE, ENFILE,
// ECONNABORTED and the like say Temporary).
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// admit serves, queues or refuses a connection just accepted.
func (l *limitListener) admit(raw net.Conn) {
	c := &limitConn{Conn: raw, l: l, client: connClient(raw), state: http.StateNew, since: l.now()}
	l.mu.Lock()
	select {
	case <-l.done:
		l.mu.Unlock()
		refuse(raw)
		return
	default:
	}
	if l.byClient[c.client] >= l.perClient {
		l.mu.Unlock()
		refuse(raw)
		return
	}
	if len(l.open) < l.max {
		l.byClient[c.client]++
		l.serveLocked(c)
		l.mu.Unlock()
		return
	}
	if victim := l.unfairLocked(c.client); victim != nil {
		// Its slot goes to the newcomer at once.
		delete(l.open, victim)
		l.dropClientLocked(victim.client)
		l.byClient[c.client]++
		l.serveLocked(c)
		l.mu.Unlock()
		victim.Close()
		return
	}
	var displaced *limitConn
	if len(l.waiting) >= l.queue {
		// The queue is full: the newcomer takes the place of a waiting
		// connection of a client that would still hold more than the
		// newcomer's after the swap (so swaps only even the shares out,
		// and never go round in circles), or is refused.
		displaced = l.biggestWaitingLocked()
		if displaced == nil || l.byClient[displaced.client] <= l.byClient[c.client]+1 {
			l.mu.Unlock()
			refuse(raw)
			return
		}
		l.removeWaitingLocked(displaced)
	}
	l.byClient[c.client]++
	c.waiting = true
	l.waiting = append(l.waiting, c)
	c.timer = time.AfterFunc(l.wait, func() { l.expire(c) })
	l.mu.Unlock()
	if displaced != nil {
		refuse(displaced.Conn)
	}
	l.makeRoom()
}

// makeRoom closes an idle connection when connections wait for a slot; if
// none is idle yet, it looks again after the grace.
func (l *limitListener) makeRoom() {
	l.mu.Lock()
	if len(l.waiting) == 0 || len(l.open) < l.max {
		l.mu.Unlock()
		return
	}
	victim := l.idleLocked()
	if victim == nil && !l.lookAgain {
		select {
		case <-l.done:
		default:
			l.lookAgain = true
			time.AfterFunc(l.grace, func() {
				l.mu.Lock()
				l.lookAgain = false
				l.mu.Unlock()
				l.makeRoom()
			})
		}
	}
	l.mu.Unlock()
	if victim == nil {
		return
	}
	victim.Close() // its release serves the first waiting
}

// serveLocked hands c to Accept (l.mu held; a slot is free).
func (l *limitListener) serveLocked(c *limitConn) {
	c.waiting = false
	if c.timer != nil {
		c.timer.Stop()
	}
	c.state, c.since = http.StateNew, l.now()
	l.open[c] = struct{}{}
	l.ready <- c // never blocks: ready holds at most max, as open does
}

// idleLocked returns the idle connection to close to make room: of the
// client with the most connections, its oldest idle one; nil if none is
// idle (l.mu held).
func (l *limitListener) idleLocked() *limitConn {
	now := l.now()
	var victim *limitConn
	for c := range l.open {
		if c.closing || !c.taken || !(c.state == http.StateIdle || c.state == http.StateNew && now.Sub(c.since) >= l.grace) {
			continue
		}
		if victim == nil || l.byClient[c.client] > l.byClient[victim.client] ||
			l.byClient[c.client] == l.byClient[victim.client] && c.since.Before(victim.since) {
			victim = c
		}
	}
	if victim != nil {
		victim.closing = true
	}
	return victim
}

// expire closes c if it still waits for a slot.
func (l *limitListener) expire(c *limitConn) {
	l.mu.Lock()
	if !c.waiting {
		l.mu.Unlock()
		return
	}
	l.removeWaitingLocked(c)
	l.mu.Unlock()
	refuse(c.Conn)
}

func (l *limitListener) removeWaitingLocked(c *limitConn) {
	for i, w := range l.waiting {
		if w == c {
			l.waiting = append(l.waiting[:i:i], l.waiting[i+1:]...)
			break
		}
	}
	c.waiting = false
	if c.timer != nil {
		c.timer.Stop()
	}
	l.dropClientLocked(c.client)
}

func (l *limitListener) dropClientLocked(client string) {
	if l.byClient[client]--; l.byClient[client] <= 0 {
		delete(l.byClient, client)
	}
}

// release frees c's slot and serves the first waiting connection.
func (l *limitListener) release(c *limitConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.open[c]; !ok {
		return
	}
	delete(l.open, c)
	l.dropClientLocked(c.client)
	if len(l.waiting) > 0 && len(l.open) < l.max {
		next := l.waiting[0]
		l.waiting = l.waiting[1:]
		l.serveLocked(next)
	}
}

// connState records a served connection's state; it is the server's
// http.Server.ConnState.
func (l *limitListener) connState(nc net.Conn, s http.ConnState) {
	c, ok := nc.(*limitConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.state != s {
		c.state, c.since = s, l.now()
	}
	if s == http.StateIdle && len(l.waiting) > 0 && !c.closing {
		// A connection goes idle while others wait: it makes room.
		c.closing = true
		go c.Close()
	}
}

// connClient is the client key of a connection's peer (web.ClientKey).
func connClient(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return web.ClientKey(a.AddrPort().Addr())
	}
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return c.RemoteAddr().String()
	}
	return web.ClientKey(ap.Addr())
}

// refuse closes a connection at once with a reset: no request is read,
// and neither side keeps it in TIME_WAIT.
func refuse(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// limitConn is a connection of a limitListener: it gives its slot back
// when closed.
type limitConn struct {
	net.Conn
	l      *limitListener
	client string
	once   sync.Once

	// Guarded by l.mu.
	state   http.ConnState
	since   time.Time // when state began
	waiting bool
	taken   bool // by Accept: before, it is in ready and no victim (ready must not overfill)
	closing bool // chosen to make room
	timer   *time.Timer
}

// Close closes the connection and frees its slot (once).
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}

// unfairLocked returns the connection to close so that a newcomer of
// client can be served at once, or nil: the oldest connection between
// requests (keep-alive) or not yet used, of the client that holds the
// most connections, if that client holds at least two more than client
// does (so that after the swap it still holds at least as many). So a
// client holding few (the owner) gets a slot at once from one holding
// many, and no swap ever undoes another (l.mu held).
func (l *limitListener) unfairLocked(client string) *limitConn {
	var victim *limitConn
	for c := range l.open {
		if c.closing || !c.taken || c.state != http.StateIdle && c.state != http.StateNew {
			continue
		}
		if victim == nil || l.byClient[c.client] > l.byClient[victim.client] ||
			l.byClient[c.client] == l.byClient[victim.client] && c.since.Before(victim.since) {
			victim = c
		}
	}
	if victim == nil || l.byClient[victim.client] < l.byClient[client]+2 {
		return nil
	}
	victim.closing = true
	return victim
}

// biggestWaitingLocked returns the waiting connection of the client that
// holds the most connections, its newest; nil if none waits (l.mu held).
func (l *limitListener) biggestWaitingLocked() *limitConn {
	var w *limitConn
	for _, c := range l.waiting {
		if w == nil || l.byClient[c.client] >= l.byClient[w.client] {
			w = c
		}
	}
	return w
}
