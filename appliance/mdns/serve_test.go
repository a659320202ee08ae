package mdns

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
)

// listenLoopback opens a UDP socket on 127.0.0.1.
func listenLoopback(t *testing.T) *net.UDPConn {
	t.Helper()
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// readReply reads one datagram from c within a few seconds.
func readReply(t *testing.T, c *net.UDPConn) (reply, netip.AddrPort) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	buf := make([]byte, MaxPacket)
	n, from, err := c.ReadFromUDPAddrPort(buf)
	require.NoError(t, err)
	return parseReply(t, buf[:n]), from
}

// TestServeOnLoopback runs the responder on a real UDP socket on loopback,
// with another loopback socket standing for the multicast group: the
// announcements arrive there twice, a legacy unicast query from a client
// socket is answered to it, and the goodbye arrives when Serve stops.
func TestServeOnLoopback(t *testing.T) {
	group := listenLoopback(t)
	server := listenLoopback(t)
	client := listenLoopback(t)
	r, err := New(Config{Hostname: "flipbot", Port: 8080,
		Networks: func(int) []netip.Prefix { return []netip.Prefix{netip.MustParsePrefix("127.0.0.1/8")} }})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.Serve(ctx, UDPConn{Conn: server, To: group.LocalAddr().(*net.UDPAddr).AddrPort()}, Timing{AnnounceGap: 50 * time.Millisecond})
	}()

	for i := range 2 {
		ann, from := readReply(t, group)
		assert.Equal(t, server.LocalAddr().(*net.UDPAddr).AddrPort(), from)
		assert.Contains(t, summary(ann.answers), "A flipbot.local. 127.0.0.1 ttl=120 flush", "announcement %d", i+1)
		assert.Contains(t, summary(ann.answers), "SRV flipbot._http._tcp.local. 0 0 8080 flipbot.local. ttl=120 flush")
	}

	q := queryMsg(t, 0xbeef, []question{{hostName, dnsmessage.TypeA, false}})
	_, err = client.WriteToUDPAddrPort(q, server.LocalAddr().(*net.UDPAddr).AddrPort())
	require.NoError(t, err)
	rep, _ := readReply(t, client)
	assert.Equal(t, uint16(0xbeef), rep.header.ID)
	assert.Equal(t, []string{"A flipbot.local. 127.0.0.1 ttl=10"}, summary(rep.answers))

	// Garbage does not stop it.
	_, err = client.WriteToUDPAddrPort([]byte{0xff, 0x00, 0x12}, server.LocalAddr().(*net.UDPAddr).AddrPort())
	require.NoError(t, err)
	_, err = client.WriteToUDPAddrPort(q, server.LocalAddr().(*net.UDPAddr).AddrPort())
	require.NoError(t, err)
	rep, _ = readReply(t, client)
	assert.Len(t, rep.answers, 1)

	cancel()
	bye, _ := readReply(t, group)
	require.NotEmpty(t, bye.answers)
	for _, a := range bye.answers {
		assert.Zero(t, a.Header.TTL)
	}
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after ctx ended")
	}
}

// fakeConn is a Conn whose reads fail with err.
type fakeConn struct {
	err    error
	closed chan struct{}
}

func (f *fakeConn) ReadPacket([]byte) (int, netip.AddrPort, int, error) {
	return 0, netip.AddrPort{}, 0, f.err
}
func (f *fakeConn) WritePacket(Packet) error { return nil }
func (f *fakeConn) Group() netip.AddrPort    { return groupV4 }
func (f *fakeConn) Interfaces() []int        { return nil }
func (f *fakeConn) Close() error             { close(f.closed); return nil }

func TestServeReturnsTheReadError(t *testing.T) {
	r := newTestResponder(t)
	f := &fakeConn{err: errors.New("socket gone"), closed: make(chan struct{})}
	err := r.Serve(context.Background(), f, Timing{})
	assert.ErrorContains(t, err, "socket gone")
	select {
	case <-f.closed:
	default:
		t.Fatal("the conn was not closed")
	}
}

// TestMulticastOnThisMachine tries the real thing: a Socket on the mDNS
// group and port, queried by multicast from this machine. Sandboxes and CI
// machines often have no multicast route or port 5353 taken: then it says
// SKIPPED and why.
func TestMulticastOnThisMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: needs port 5353 and a multicast route")
	}
	s, err := Listen(groupV4, nil)
	if err != nil {
		t.Skipf("SKIPPED: cannot open the mDNS socket here: %v", err)
	}
	ifs := s.Interfaces()
	if len(ifs) == 0 {
		s.Close()
		t.Skip("SKIPPED: no multicast interface to join the group on")
	}
	r, err := New(Config{Hostname: "flipbot-test", Port: 8080, Networks: InterfaceNetworks})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Serve(ctx, s, Timing{})

	client, err := net.ListenUDP("udp4", &net.UDPAddr{})
	require.NoError(t, err)
	defer client.Close()
	q := queryMsg(t, 0x4242, []question{{"flipbot-test.local.", dnsmessage.TypeA, false}})
	if _, err := client.WriteToUDP(q, net.UDPAddrFromAddrPort(groupV4)); err != nil {
		t.Skipf("SKIPPED: cannot send to the group here: %v", err)
	}
	require.NoError(t, client.SetReadDeadline(time.Now().Add(3*time.Second)))
	buf := make([]byte, MaxPacket)
	n, _, err := client.ReadFromUDPAddrPort(buf)
	if err != nil {
		t.Skipf("SKIPPED: no answer by multicast here (interfaces %v): %v", ifs, err)
	}
	rep := parseReply(t, buf[:n])
	assert.Equal(t, uint16(0x4242), rep.header.ID, "a legacy query, answered by unicast")
	require.NotEmpty(t, rep.answers)
	a, ok := rep.answers[0].Body.(*dnsmessage.AResource)
	require.True(t, ok)
	assert.True(t, slices.ContainsFunc(InterfaceNetworks(0), func(p netip.Prefix) bool { return p.Addr() == netip.AddrFrom4(a.A) }),
		"%v is one of this machine's addresses", a.A)

	// A query from port 5353 is answered to the group: a second socket on
	// the group's port (shared) that joined the group hears it.
	peer, err := net.ListenPacket("udp4", groupV4.String())
	require.NoError(t, err)
	defer peer.Close()
	pc := ipv4.NewPacketConn(peer)
	for _, i := range ifs {
		ifi, err := net.InterfaceByIndex(i)
		require.NoError(t, err)
		require.NoError(t, pc.JoinGroup(ifi, &net.UDPAddr{IP: groupV4.Addr().AsSlice()}))
	}
	// The service types: the one record the announcements (a second ago
	// at most, so under the one-second rule) leave out.
	qm := queryMsg(t, 0, []question{{servicesName, dnsmessage.TypePTR, false}})
	_, err = peer.WriteTo(qm, net.UDPAddrFromAddrPort(groupV4))
	require.NoError(t, err)
	require.NoError(t, peer.SetReadDeadline(time.Now().Add(3*time.Second)))
	for {
		n, _, err := peer.ReadFrom(buf)
		require.NoError(t, err, "no multicast answer")
		var p dnsmessage.Parser
		if h, err := p.Start(buf[:n]); err != nil || !h.Response {
			continue // our own query, looped back
		}
		rep := parseReply(t, buf[:n])
		if len(rep.answers) == 1 && rep.answers[0].Header.Name.String() == servicesName {
			assert.Zero(t, rep.header.ID)
			assert.Equal(t, []string{"PTR _services._dns-sd._udp.local. _http._tcp.local. ttl=4500"}, summary(rep.answers))
			break
		}
	}
}

// TestMulticastIPv6OnThisMachine: the same over IPv6, a legacy query sent
// to ff02::fb on each joined interface, answered by unicast with an AAAA
// record of this machine. SKIPPED where IPv6 multicast is missing.
func TestMulticastIPv6OnThisMachine(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED in -short: needs port 5353 and IPv6 multicast")
	}
	s, err := Listen(groupV6, nil)
	if err != nil {
		t.Skipf("SKIPPED: cannot open the IPv6 mDNS socket here: %v", err)
	}
	ifs := s.Interfaces()
	if len(ifs) == 0 {
		s.Close()
		t.Skip("SKIPPED: no IPv6 multicast interface to join the group on")
	}
	r, err := New(Config{Hostname: "flipbot-test6", Port: 8080, Networks: InterfaceNetworks})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go r.Serve(ctx, s, Timing{})

	client, err := net.ListenUDP("udp6", &net.UDPAddr{})
	if err != nil {
		t.Skipf("SKIPPED: no IPv6 socket here: %v", err)
	}
	defer client.Close()
	ifi, err := net.InterfaceByIndex(ifs[0])
	require.NoError(t, err)
	q := queryMsg(t, 0x6666, []question{{"flipbot-test6.local.", dnsmessage.TypeAAAA, false}})
	if _, err := client.WriteToUDP(q, &net.UDPAddr{IP: groupV6.Addr().AsSlice(), Port: Port, Zone: ifi.Name}); err != nil {
		t.Skipf("SKIPPED: cannot send to ff02::fb%%%s here: %v", ifi.Name, err)
	}
	require.NoError(t, client.SetReadDeadline(time.Now().Add(3*time.Second)))
	buf := make([]byte, MaxPacket)
	n, _, err := client.ReadFromUDPAddrPort(buf)
	if err != nil {
		t.Skipf("SKIPPED: no answer over IPv6 multicast here (interface %s): %v", ifi.Name, err)
	}
	rep := parseReply(t, buf[:n])
	assert.Equal(t, uint16(0x6666), rep.header.ID)
	require.NotEmpty(t, rep.answers)
	a, ok := rep.answers[0].Body.(*dnsmessage.AAAAResource)
	require.True(t, ok, "%v", summary(rep.answers))
	assert.True(t, slices.ContainsFunc(InterfaceNetworks(ifs[0]), func(p netip.Prefix) bool { return p.Addr() == netip.AddrFrom16(a.AAAA) }),
		"%v is an address of %s", netip.AddrFrom16(a.AAAA), ifi.Name)
}
