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

// TestLimitListener: at most max connections are accepted at once; one
// closing lets the next in; Close ends an Accept waiting for a slot.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := newLimitListener(inner, 2)
	accepted := make(chan net.Conn, 8)
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
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		require.NoError(t, err)
		defer c.Close()
	}
	first, second := <-accepted, <-accepted
	select {
	case <-accepted:
		t.Fatal("a third connection accepted while two are open")
	case <-time.After(100 * time.Millisecond):
	}
	require.NoError(t, first.Close())
	first.Close() // a second Close frees nothing more
	third := <-accepted
	require.NoError(t, l.Close())
	assert.ErrorIs(t, <-acceptDone, net.ErrClosed)
	second.Close()
	third.Close()
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
