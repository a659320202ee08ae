package mdns

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"sync"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
)

// Socket is the device's multicast DNS socket of one address family: UDP
// port 5353 on every address (shared: the standard library sets
// SO_REUSEADDR for a multicast listen address), the group joined on every
// up, multicast-capable, non-loopback interface that Accept lets through,
// the interface of each packet read from its control message, and an IP
// TTL (hop limit) of 255 on what it sends (RFC 6762 §11).
type Socket struct {
	group  netip.AddrPort
	conn   net.PacketConn
	v4     *ipv4.PacketConn // one of v4 and v6
	v6     *ipv6.PacketConn
	accept func(net.Interface) bool

	mu     sync.Mutex // guards joined
	joined map[int]bool
}

// Listen opens the socket of group (GroupV4 or GroupV6) and joins the group
// on the interfaces accept lets through (all when nil), now and at each
// call of Interfaces.
func Listen(group netip.AddrPort, accept func(net.Interface) bool) (*Socket, error) {
	network := "udp4"
	if group.Addr().Is6() {
		network = "udp6"
	}
	if !group.Addr().IsMulticast() {
		return nil, fmt.Errorf("mdns: %s is not a multicast group", group)
	}
	c, err := net.ListenPacket(network, group.String())
	if err != nil {
		return nil, fmt.Errorf("mdns: listen: %w", err)
	}
	s := &Socket{group: group, conn: c, accept: accept, joined: map[int]bool{}}
	// The options below are best effort: where the system lacks one
	// (the interface of a packet on Windows), the responder still works,
	// less precisely.
	if network == "udp4" {
		s.v4 = ipv4.NewPacketConn(c)
		_ = s.v4.SetControlMessage(ipv4.FlagInterface, true)
		_ = s.v4.SetMulticastTTL(255)
		_ = s.v4.SetTTL(255)
	} else {
		s.v6 = ipv6.NewPacketConn(c)
		_ = s.v6.SetControlMessage(ipv6.FlagInterface, true)
		_ = s.v6.SetMulticastHopLimit(255)
		_ = s.v6.SetHopLimit(255)
	}
	s.Interfaces()
	return s, nil
}

// ReadPacket reads one datagram and the interface it came in on.
func (s *Socket) ReadPacket(b []byte) (int, netip.AddrPort, int, error) {
	var (
		n       int
		src     net.Addr
		ifIndex int
		err     error
	)
	if s.v4 != nil {
		var cm *ipv4.ControlMessage
		n, cm, src, err = s.v4.ReadFrom(b)
		if cm != nil {
			ifIndex = cm.IfIndex
		}
	} else {
		var cm *ipv6.ControlMessage
		n, cm, src, err = s.v6.ReadFrom(b)
		if cm != nil {
			ifIndex = cm.IfIndex
		}
	}
	if err != nil {
		return 0, netip.AddrPort{}, 0, err
	}
	u, ok := src.(*net.UDPAddr)
	if !ok {
		return 0, netip.AddrPort{}, 0, fmt.Errorf("mdns: source %v is not UDP", src)
	}
	return n, u.AddrPort(), ifIndex, nil
}

// WritePacket sends p, out of p.IfIndex when it is not 0.
func (s *Socket) WritePacket(p Packet) error {
	dst := net.UDPAddrFromAddrPort(p.To)
	var err error
	if s.v4 != nil {
		var cm *ipv4.ControlMessage
		if p.IfIndex > 0 {
			cm = &ipv4.ControlMessage{IfIndex: p.IfIndex}
		}
		_, err = s.v4.WriteTo(p.Data, cm, dst)
	} else {
		var cm *ipv6.ControlMessage
		if p.IfIndex > 0 {
			cm = &ipv6.ControlMessage{IfIndex: p.IfIndex}
		}
		_, err = s.v6.WriteTo(p.Data, cm, dst)
	}
	return err
}

// Group is the group Listen was given.
func (s *Socket) Group() netip.AddrPort { return s.group }

// Interfaces joins the group on the interfaces that came up since the last
// call and returns the indexes of those it is joined on, in order. An
// interface that is gone is forgotten (the system drops its membership).
func (s *Socket) Interfaces() []int {
	ifs, err := net.Interfaces()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		return s.joinedLocked()
	}
	present := map[int]bool{}
	gaddr := &net.UDPAddr{IP: s.group.Addr().AsSlice()}
	for _, ifi := range ifs {
		if ifi.Flags&net.FlagUp == 0 || ifi.Flags&net.FlagMulticast == 0 || ifi.Flags&net.FlagLoopback != 0 {
			continue
		}
		if s.accept != nil && !s.accept(ifi) {
			continue
		}
		present[ifi.Index] = true
		if s.joined[ifi.Index] {
			continue
		}
		var jerr error
		if s.v4 != nil {
			jerr = s.v4.JoinGroup(&ifi, gaddr)
		} else {
			jerr = s.v6.JoinGroup(&ifi, gaddr)
		}
		if jerr == nil { // else tried again at the next call
			s.joined[ifi.Index] = true
		}
	}
	for i := range s.joined {
		if !present[i] {
			delete(s.joined, i)
		}
	}
	return s.joinedLocked()
}

func (s *Socket) joinedLocked() []int {
	out := make([]int, 0, len(s.joined))
	for i := range s.joined {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// Close closes the socket.
func (s *Socket) Close() error { return s.conn.Close() }

// InterfaceNetworks returns the addresses, with their networks, of
// interface ifIndex, or of every up interface but loopback when ifIndex is
// 0 or unknown.
func InterfaceNetworks(ifIndex int) []netip.Prefix {
	var ifs []net.Interface
	if ifIndex > 0 {
		if ifi, err := net.InterfaceByIndex(ifIndex); err == nil {
			ifs = []net.Interface{*ifi}
		}
	}
	if ifs == nil {
		all, err := net.Interfaces()
		if err != nil {
			return nil
		}
		for _, ifi := range all {
			if ifi.Flags&net.FlagUp != 0 && ifi.Flags&net.FlagLoopback == 0 {
				ifs = append(ifs, ifi)
			}
		}
	}
	var out []netip.Prefix
	for _, ifi := range ifs {
		addrs, err := ifi.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			n, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(n.IP)
			if !ok {
				continue
			}
			ones, bits := n.Mask.Size()
			if ip.Is4In6() && bits == 128 {
				ones -= 96
			}
			if p := netip.PrefixFrom(ip.Unmap(), ones); p.IsValid() {
				out = append(out, p)
			}
		}
	}
	return out
}
