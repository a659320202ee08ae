package vm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// SNTPServer answers SNTP requests with the host's clock, for a guest with
// no clock of its own and no other time source (RFC 4330, "Simple Network
// Time Protocol (SNTP) Version 4", §5 "SNTP Server Operations"). It listens
// on loopback only, reads one bounded datagram at a time, and answers at
// most sntpRate requests a second.
type SNTPServer struct {
	conn *net.UDPConn
	now  func() time.Time

	mu      sync.Mutex
	answers int
}

const (
	sntpPacket = 48 // the header without extensions or authenticator
	sntpRate   = 50 // answers a second, at most
	// ntpEpochOffset is 1900-01-01 to 1970-01-01 in seconds (RFC 4330 §3).
	ntpEpochOffset = 2208988800
)

// ListenSNTP binds a UDP socket on addr, which must be a loopback address.
func ListenSNTP(addr string, now func() time.Time) (*SNTPServer, error) {
	ua, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("sntp: %w", err)
	}
	if !ua.IP.IsLoopback() {
		return nil, fmt.Errorf("sntp: %s is not a loopback address", addr)
	}
	c, err := net.ListenUDP("udp", ua)
	if err != nil {
		return nil, fmt.Errorf("sntp: %w", err)
	}
	return &SNTPServer{conn: c, now: now}, nil
}

// Addr is the address the server listens on.
func (s *SNTPServer) Addr() net.Addr { return s.conn.LocalAddr() }

// Answers counts the requests answered so far.
func (s *SNTPServer) Answers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answers
}

// Close stops Serve.
func (s *SNTPServer) Close() error { return s.conn.Close() }

// Serve answers requests until Close.
func (s *SNTPServer) Serve() {
	buf := make([]byte, 512)
	var window time.Time
	n := 0
	for {
		size, from, err := s.conn.ReadFromUDP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		recv := s.now()
		if recv.Sub(window) >= time.Second {
			window, n = recv, 0
		}
		if n >= sntpRate {
			continue
		}
		reply, ok := sntpReply(buf[:size], recv, s.now)
		if !ok {
			continue
		}
		n++
		if _, err := s.conn.WriteToUDP(reply, from); err == nil {
			s.mu.Lock()
			s.answers++
			s.mu.Unlock()
		}
	}
}

// sntpReply builds the answer to the request req received at recv, or
// reports that req is not a client request to answer. RFC 4330 §5: the
// version is copied from the request (1–4), the mode is 4 (server) for a
// client's 3; leap indicator 0, stratum 1 with reference "LOCL" (the
// host's own clock), the poll copied; the originate timestamp is the
// request's transmit timestamp, receive and transmit are ours.
func sntpReply(req []byte, recv time.Time, now func() time.Time) ([]byte, bool) {
	if len(req) < sntpPacket {
		return nil, false
	}
	vn, mode := req[0]>>3&7, req[0]&7
	if vn < 1 || vn > 4 || mode != 3 {
		return nil, false
	}
	r := make([]byte, sntpPacket)
	r[0] = vn<<3 | 4
	r[1] = 1               // stratum: primary
	r[2] = req[2]          // poll
	r[3] = 0xEC            // precision: 2^-20 s
	copy(r[12:16], "LOCL") // reference identifier
	be := binary.BigEndian
	be.PutUint32(r[8:], 1<<16>>6) // root dispersion: 1/64 s
	ntpTime(r[16:], recv)         // reference timestamp
	copy(r[24:32], req[40:48])    // originate = the client's transmit
	ntpTime(r[32:], recv)         // receive
	ntpTime(r[40:], now())        // transmit
	return r, true
}

// ntpTime writes t as a 64-bit NTP timestamp: seconds since 1900 and a
// binary fraction (RFC 4330 §3).
func ntpTime(b []byte, t time.Time) {
	sec := uint64(t.Unix()) + ntpEpochOffset
	frac := uint64(t.Nanosecond()) << 32 / 1e9
	binary.BigEndian.PutUint64(b, sec<<32|frac)
}
