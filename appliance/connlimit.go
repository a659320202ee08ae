package appliance

import (
	"net"
	"sync"
)

// DefaultMaxPageConns is how many connections each page listener holds at
// once. Browsers open about six per page; a LAN that opens more waits in
// the kernel's accept queue, where a connection costs the process no file
// descriptor: the bot's own connections to FlipSight, its engines and its
// files keep theirs (4,200 held page connections starved them under a
// limit of 4,096 descriptors before).
const DefaultMaxPageConns = 64

// limitListener accepts at most max connections that are open at once:
// Accept waits for one of them to close. (golang.org/x/net/netutil's
// LimitListener does the same; the appliance keeps to the standard
// library.)
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

// newLimitListener returns l accepting at most max open connections.
func newLimitListener(l net.Listener, max int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, max), done: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, free: func() { <-l.slots }}, nil
}

// Close closes the listener and ends the Accepts waiting for a slot.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back when closed.
type limitConn struct {
	net.Conn
	once sync.Once
	free func()
}

// Close closes the connection and frees its slot (once).
func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.free)
	return err
}
