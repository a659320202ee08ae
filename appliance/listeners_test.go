package appliance

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pages follow the private addresses as they come and go (DHCP late,
// Wi-Fi later), and an address that cannot be bound is retried, logged once.
func TestPageServersFollowAddresses(t *testing.T) {
	var mu sync.Mutex
	hosts := []string{"127.0.0.1"}
	var hostsErr error
	logs := &syncBuffer{}
	p := &pageServers{
		handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }),
		port:    0,
		hosts: func() ([]string, error) {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), hosts...), hostsErr
		},
		log: slog.New(slog.NewTextHandler(logs, nil)),
	}
	set := func(h []string, err error) {
		mu.Lock()
		hosts, hostsErr = h, err
		mu.Unlock()
		p.refresh()
	}
	get := func(u string) error {
		c := http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	defer p.shutdown(time.Second)

	p.refresh()
	urls := p.urls()
	require.Len(t, urls, 1)
	first := urls[0]
	require.NoError(t, get(first))

	set([]string{"127.0.0.1", "127.0.0.2"}, nil)
	require.Len(t, p.urls(), 2)
	for _, u := range p.urls() {
		require.NoError(t, get(u))
	}

	set([]string{"127.0.0.2"}, nil)
	require.Len(t, p.urls(), 1)
	assert.Error(t, get(first), "a vanished address is no longer served")

	set([]string{"127.0.0.2", "192.0.2.99"}, nil) // not ours: cannot bind
	set([]string{"127.0.0.2", "192.0.2.99"}, nil)
	assert.Len(t, p.urls(), 1)
	assert.Equal(t, 1, strings.Count(logs.String(), "pages: listen on 192.0.2.99"), "the same failure is logged once")

	set(nil, errors.New("netlink down"))
	assert.Len(t, p.urls(), 1, "a failed listing keeps what is served")
}

// TestLimitListener: at most max connections are served at once, a
// quarter of them per client. When the limit is full, a newcomer whose
// client holds at least two fewer than another takes the slot of that
// one's idle connection at once; else it waits, in a queue of a quarter
// more, and an idle connection is closed to make room for it; over its
// client's share, or beyond the queue (unless it displaces a waiting
// connection of a client holding two more), it is closed at once; Close
// ends Accept and the waiting connections. Before, every connection
// waited for a slot, in the kernel's queue, however many one client held.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := limitListenerFor(inner, 8) // 2 per client, 2 waiting
	l.grace = time.Hour             // silent connections are never idle here
	l.start()
	accepted := make(chan net.Conn, 16)
	acceptDone := make(chan error, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				acceptDone <- err
				return
			}
			accepted <- c
		}
	}()
	var clientConns []net.Conn
	defer func() {
		for _, c := range clientConns {
			c.Close()
		}
	}()
	dial := func(client byte) net.Conn {
		t.Helper()
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, client)}}
		c, err := d.Dial("tcp", inner.Addr().String())
		require.NoError(t, err)
		clientConns = append(clientConns, c)
		return c
	}
	// refused reports whether the server closed c at once.
	refused := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err := c.Read(make([]byte, 1))
		var ne net.Error
		return err != nil && !(errors.As(err, &ne) && ne.Timeout())
	}
	// refusedDial reports whether a connection of client is refused at
	// once (the reset may come before the dial returns).
	refusedDial := func(client byte) bool {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, client)}}
		c, err := d.Dial("tcp", inner.Addr().String())
		if err != nil {
			return true
		}
		defer c.Close()
		return refused(c)
	}
	served := func() net.Conn {
		t.Helper()
		select {
		case c := <-accepted:
			return c
		case <-time.After(2 * time.Second):
			t.Fatal("no connection served")
			return nil
		}
	}
	noneServed := func(why string) {
		t.Helper()
		select {
		case c := <-accepted:
			t.Fatalf("%s: served %v", why, c.RemoteAddr())
		case <-time.After(100 * time.Millisecond):
		}
	}

	// server is the served end of a client's connection.
	server := map[string]net.Conn{}
	serve := func(n int) {
		t.Helper()
		for range n {
			c := served()
			server[c.RemoteAddr().String()] = c
		}
	}
	isServed := func(c net.Conn) bool { return server[c.LocalAddr().String()] != nil }
	// open reports whether c stays open (for a while).
	open := func(c net.Conn) bool {
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		_, err := c.Read(make([]byte, 1))
		var ne net.Error
		return errors.As(err, &ne) && ne.Timeout()
	}

	a1, a2 := dial(2), dial(2)
	serve(2)
	assert.True(t, refusedDial(2), "a third connection of one client is closed at once")
	var c1 net.Conn
	for _, client := range []byte{3, 4, 5} {
		c := dial(client)
		dial(client)
		if client == 4 {
			c1 = c
		}
	}
	serve(6)
	// Every request in progress but one keep-alive connection of
	// 127.0.0.4.
	for _, c := range server {
		l.connState(c, http.StateActive)
	}
	l.connState(server[c1.LocalAddr().String()], http.StateIdle)

	// Full: a client holding nothing gets the idle slot of one holding
	// two, at once.
	w6 := dial(6)
	assert.True(t, refused(c1), "the idle connection of a client holding two is closed")
	serve(1)
	assert.True(t, isServed(w6), "the newcomer is served at once")
	l.connState(server[w6.LocalAddr().String()], http.StateActive)

	// Nothing idle: newcomers wait, two at most.
	w7 := dial(7)
	noneServed("full, nothing idle: it waits")
	w6b := dial(6) // 127.0.0.6 holds one, waits for another
	noneServed("it waits too")
	// The queue is full: a client holding nothing takes the place of one
	// holding two (127.0.0.6); against those holding one it is refused.
	w9 := dial(9)
	assert.True(t, refused(w6b), "displaced from the queue")
	assert.True(t, refusedDial(8), "beyond the queue a connection is closed at once")
	assert.True(t, refusedDial(3), "over its share a connection is closed at once")
	noneServed("still full")

	// A served connection that goes idle while others wait makes room.
	l.connState(server[a1.LocalAddr().String()], http.StateIdle)
	assert.True(t, refused(a1), "the idle connection is closed")
	serve(1)
	assert.True(t, isServed(w7), "the first waiting is served")
	assert.True(t, open(a2), "a request in progress is never cut")

	// Close ends Accept and closes those waiting.
	require.NoError(t, l.Close())
	assert.ErrorIs(t, <-acceptDone, net.ErrClosed)
	assert.True(t, refused(w9), "a waiting connection is closed with the listener")
	for _, c := range server {
		c.Close()
	}
}

func TestServedNetworks(t *testing.T) {
	nets := []netip.Prefix{
		netip.MustParsePrefix("192.168.1.50/24"),
		netip.MustParsePrefix("203.0.113.7/24"), // a public address: no page there
		netip.MustParsePrefix("fe80::1/64"),
		netip.MustParsePrefix("fd00::50/64"),
	}
	hosts := []string{"192.168.1.50", "fe80::1%eth0", "10.0.0.9", "not an address"}
	assert.Equal(t, []netip.Prefix{netip.MustParsePrefix("192.168.1.50/24"), netip.MustParsePrefix("fe80::1/64")},
		servedNetworks(nets, hosts))
	assert.Empty(t, servedNetworks(nets, nil))
}
