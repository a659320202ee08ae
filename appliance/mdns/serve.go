package mdns

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Conn is a UDP socket as Serve uses it: a [Socket] on the device, a
// [UDPConn] or a fake in tests.
type Conn interface {
	// ReadPacket reads one datagram into b: its length, its source and the
	// index of the interface it came in on (0 when unknown).
	ReadPacket(b []byte) (n int, src netip.AddrPort, ifIndex int, err error)
	// WritePacket sends p.Data to p.To, out of interface p.IfIndex when
	// p.To is the group (0: the socket's default).
	WritePacket(p Packet) error
	// Group is where multicast answers and announcements go: the group
	// and port (224.0.0.251:5353 or [ff02::fb]:5353), any address in tests.
	Group() netip.AddrPort
	// Interfaces returns the indexes of the interfaces the socket has
	// joined the group on, joining new ones first ([0]: the default one).
	Interfaces() []int
	// Close ends ReadPacket.
	Close() error
}

// Timing of Serve: every refresh it looks for new interfaces and changed
// addresses; each announcement is sent twice, announceGap apart (RFC 6762
// §8.3: at least two, one second apart).
type Timing struct {
	Refresh     time.Duration // 10 s when 0
	AnnounceGap time.Duration // 1 s when 0
}

// Serve answers the queries c reads and announces the records on c's
// interfaces until ctx ends; then it says goodbye (the records with TTL 0)
// and closes c. It returns nil after ctx ends, else c's read error.
func (r *Responder) Serve(ctx context.Context, c Conn, t Timing) error {
	if t.Refresh <= 0 {
		t.Refresh = 10 * time.Second
	}
	if t.AnnounceGap <= 0 {
		t.AnnounceGap = time.Second
	}
	group := c.Group()
	stopped := make(chan struct{}) // closed when reading ends
	announced := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(announced)
		r.announce(ctx, c, t, stopped)
	})
	wg.Go(func() {
		select {
		case <-ctx.Done():
			<-announced // the goodbyes go out first
		case <-stopped:
		}
		c.Close()
	})
	r.log.Info("mdns: answering", "name", r.Host(), "group", group.String(), "port", r.cfg.Port)

	buf := make([]byte, MaxPacket+1)
	var err error
	for {
		n, src, ifIndex, rerr := c.ReadPacket(buf)
		if rerr != nil {
			if ctx.Err() != nil {
				break // closed for the stop
			}
			if ne, ok := errors.AsType[net.Error](rerr); ok && ne.Timeout() {
				continue // a deadline a Conn may set: not an end
			}
			err = rerr
			break
		}
		for _, p := range r.Handle(buf[:n], src, ifIndex, group, time.Now()) {
			if werr := c.WritePacket(p); werr != nil {
				r.log.Debug("mdns: send", "to", p.To.String(), "err", werr)
			}
		}
	}
	close(stopped)
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	r.log.Warn("mdns: stopped", "err", err)
	return err
}

// announce sends the announcements: twice on every interface at start, and
// again on an interface that is new or whose addresses changed; the
// goodbye when ctx ends. It returns when ctx ends or stopped is closed.
func (r *Responder) announce(ctx context.Context, c Conn, t Timing, stopped <-chan struct{}) {
	group := c.Group()
	seen := map[int][]netip.Prefix{} // the networks last announced per interface
	send := func(ifIndex int, goodbye bool) {
		if data := r.announcement(ifIndex, group, goodbye, time.Now()); data != nil && (goodbye || r.spend(time.Now())) {
			if err := c.WritePacket(Packet{To: group, IfIndex: ifIndex, Data: data}); err != nil {
				r.log.Debug("mdns: announce", "ifindex", ifIndex, "err", err)
			}
		}
	}
	var pending []int // interfaces owed their second announcement
	refresh := time.NewTicker(t.Refresh)
	defer refresh.Stop()
	var second <-chan time.Time
	check := func() {
		for _, i := range c.Interfaces() {
			nets := r.cfg.Networks(i)
			if old, ok := seen[i]; ok && slices.Equal(old, nets) {
				continue
			}
			seen[i] = nets
			send(i, false)
			if !slices.Contains(pending, i) {
				pending = append(pending, i)
			}
		}
		if len(pending) > 0 && second == nil {
			second = time.After(t.AnnounceGap)
		}
	}
	check()
	for {
		select {
		case <-ctx.Done():
			for i := range seen {
				send(i, true)
			}
			return
		case <-stopped:
			return
		case <-second:
			second = nil
			for _, i := range pending {
				send(i, false)
			}
			pending = nil
		case <-refresh.C:
			check()
		}
	}
}

// UDPConn is a plain UDP socket as a Conn, with no interface information:
// for tests on loopback, where To is a unicast address that stands for
// the group.
type UDPConn struct {
	Conn *net.UDPConn
	// To receives what would be multicast.
	To netip.AddrPort
}

// ReadPacket reads a datagram; the interface is unknown (0).
func (u UDPConn) ReadPacket(b []byte) (int, netip.AddrPort, int, error) {
	n, src, err := u.Conn.ReadFromUDPAddrPort(b)
	return n, src, 0, err
}

// WritePacket sends p.Data to p.To.
func (u UDPConn) WritePacket(p Packet) error {
	_, err := u.Conn.WriteToUDPAddrPort(p.Data, p.To)
	return err
}

// Group is To.
func (u UDPConn) Group() netip.AddrPort { return u.To }

// Interfaces is the default interface only.
func (u UDPConn) Interfaces() []int { return []int{0} }

// Close closes the socket.
func (u UDPConn) Close() error { return u.Conn.Close() }
