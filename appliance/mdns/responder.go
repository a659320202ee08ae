package mdns

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// Bounds of the responder (see the package comment).
const (
	// MaxPacket is the largest packet read or sent: RFC 6762 §17's limit
	// for multicast DNS messages over Ethernet jumbo frames.
	MaxPacket = 9000
	// MaxQuestions is how many questions of a query are answered.
	MaxQuestions = 32
	// MaxKnownAnswers is how many known answers of a query are read.
	MaxKnownAnswers = 64
	// MaxRepliesPerSecond bounds the packets sent a second, in all.
	MaxRepliesPerSecond = 20
	// Port is the multicast DNS port.
	Port = 5353
)

// The multicast DNS groups (RFC 6762 §3).
var (
	groupV4 = netip.MustParseAddrPort("224.0.0.251:5353")
	groupV6 = netip.MustParseAddrPort("[ff02::fb]:5353")
)

// GroupV4 and GroupV6 return the multicast DNS groups and port.
func GroupV4() netip.AddrPort { return groupV4 }

// GroupV6 is the IPv6 group: ff02::fb port 5353.
func GroupV6() netip.AddrPort { return groupV6 }

// Config is what a Responder answers with.
type Config struct {
	// Hostname is the device's host name (gokrazy's hostname); the
	// responder answers for Hostname.local. A name with a domain is cut at
	// its first dot.
	Hostname string
	// Instance names the page's DNS-SD service instance (Hostname when
	// empty): Instance._http._tcp.local.
	Instance string
	// Port is the page's TCP port.
	Port int
	// Networks returns the addresses, with their networks, that the host
	// name stands for on interface ifIndex (0: the interface is unknown,
	// every one). Queries from outside these networks, link-local sources
	// apart, are not answered (RFC 6762 §11).
	Networks func(ifIndex int) []netip.Prefix
	// Logger gets the start, the stop and the socket's errors
	// (slog.Default() when nil).
	Logger *slog.Logger
}

// Responder answers multicast DNS queries for the device's name and page.
// Its methods may be called from several goroutines.
type Responder struct {
	cfg   Config
	names names
	log   *slog.Logger

	mu sync.Mutex // guards the fields below
	// sent is when each record (by interface, family and key) was last
	// multicast (RFC 6762 §6's one-second rule).
	sent map[sentKey]time.Time
	// budget is the token bucket of MaxRepliesPerSecond, refilled at
	// refilled.
	budget   float64
	refilled time.Time
}

type sentKey struct {
	ifIndex int
	v6      bool
	key     string
}

// New checks cfg and returns a Responder.
func New(cfg Config) (*Responder, error) {
	host, _, _ := strings.Cut(cfg.Hostname, ".")
	if err := checkLabel(host); err != nil {
		return nil, fmt.Errorf("mdns: %w", err)
	}
	if cfg.Instance == "" {
		cfg.Instance = host
	}
	if err := checkInstance(cfg.Instance); err != nil {
		return nil, fmt.Errorf("mdns: %w", err)
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("mdns: port %d out of range", cfg.Port)
	}
	if cfg.Networks == nil {
		return nil, errors.New("mdns: no Networks")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Responder{
		cfg:    cfg,
		names:  names{host: host + ".local.", instance: cfg.Instance + "." + serviceType},
		log:    log,
		sent:   map[sentKey]time.Time{},
		budget: MaxRepliesPerSecond,
	}, nil
}

// Host returns the name the responder answers for: "flipbot.local".
func (r *Responder) Host() string { return strings.TrimSuffix(r.names.host, ".") }

// A Packet is a datagram to send: to a querier, or to the group out of
// interface IfIndex (0: the socket's default).
type Packet struct {
	To      netip.AddrPort
	IfIndex int
	Data    []byte
}

// query is what Handle reads of a received query.
type query struct {
	id        uint16
	questions []dnsmessage.Question
	known     map[string]uint32 // known answers' keys and TTLs
}

// Handle answers one received datagram b from src, which came in on
// interface ifIndex (0: unknown) of a socket whose group is group, at now.
// It returns the packets to send: none for anything but a well-formed
// query for one of its names from the interface's networks, or when the
// answers were multicast less than a second ago or the reply budget is
// spent.
func (r *Responder) Handle(b []byte, src netip.AddrPort, ifIndex int, group netip.AddrPort, now time.Time) []Packet {
	if len(b) > MaxPacket {
		return nil
	}
	q, ok := parseQuery(b)
	if !ok {
		return nil
	}
	nets := r.cfg.Networks(ifIndex)
	if !fromLink(src.Addr(), nets) {
		return nil
	}
	all := r.records(addrsOf(nets, !group.Addr().Is6()))
	legacy := src.Port() != Port

	var multi, uni []record
	for _, qu := range q.questions {
		name := qu.Name.String()
		for _, rec := range all {
			if !rec.matches(name, qu.Type) {
				continue
			}
			if !legacy {
				if ttl, ok := q.known[rec.key]; ok && ttl >= rec.ttl/2 {
					continue // RFC 6762 §7.1
				}
			}
			if legacy || qu.Class&unicastResponse != 0 {
				uni = appendNew(uni, rec)
			} else {
				multi = appendNew(multi, rec)
			}
		}
	}

	var out []Packet
	if len(uni) > 0 && r.spend(now) {
		var data []byte
		if legacy {
			data = build(q.id, q.questions, uni, additionals(uni, all, r.names), legacyTTL, false)
		} else {
			data = build(0, nil, uni, additionals(uni, all, r.names), 0, true)
		}
		if data != nil {
			out = append(out, Packet{To: src, Data: data})
		}
	}
	if multi = r.notSentWithin(multi, ifIndex, group, now); len(multi) > 0 && r.spend(now) {
		extra := additionals(multi, all, r.names)
		if data := build(0, nil, multi, extra, 0, true); data != nil {
			r.markSent(append(multi, extra...), ifIndex, group, now)
			out = append(out, Packet{To: group, IfIndex: ifIndex, Data: data})
		}
	}
	return out
}

// announcement returns the unsolicited response with every record of
// interface ifIndex (RFC 6762 §8.3), or with every TTL 0 when goodbye
// (§10.1); nil when the interface has no address yet.
func (r *Responder) announcement(ifIndex int, group netip.AddrPort, goodbye bool, now time.Time) []byte {
	addrs := addrsOf(r.cfg.Networks(ifIndex), !group.Addr().Is6())
	if len(addrs) == 0 {
		return nil
	}
	// The service type's entry is only for enumeration queries.
	all := slices.DeleteFunc(r.records(addrs), func(rec record) bool { return rec.name.String() == servicesName })
	if goodbye {
		for i := range all {
			all[i].ttl = 0
		}
		return build(0, nil, all, nil, 0, true)
	}
	r.markSent(all, ifIndex, group, now)
	return build(0, nil, all, nil, 0, true)
}

// parseQuery reads a query's header, questions and known answers; ok is
// false for responses, opcodes other than a standard query, non-zero
// response codes (RFC 6762 §18.3, §18.11) and malformed messages.
func parseQuery(b []byte) (q query, ok bool) {
	var p dnsmessage.Parser
	h, err := p.Start(b)
	if err != nil || h.Response || h.OpCode != 0 || h.RCode != dnsmessage.RCodeSuccess {
		return q, false
	}
	q.id = h.ID
	for {
		qu, err := p.Question()
		if errors.Is(err, dnsmessage.ErrSectionDone) {
			break
		}
		if err != nil {
			return q, false
		}
		if len(q.questions) < MaxQuestions && qu.Class&^unicastResponse == dnsmessage.ClassINET {
			q.questions = append(q.questions, qu)
		}
	}
	if len(q.questions) == 0 {
		return q, false
	}
	for i := 0; i < MaxKnownAnswers; i++ {
		h, err := p.AnswerHeader()
		if err != nil {
			break // done, or a malformed known answer: the questions stand
		}
		body, err := answerBody(&p, h.Type)
		if err != nil {
			break
		}
		if k := knownKey(h, body); k != "" {
			if q.known == nil {
				q.known = map[string]uint32{}
			}
			q.known[k] = h.TTL
		}
	}
	return q, true
}

// answerBody reads the body of an answer of the types this responder owns,
// and skips the others (nil body).
func answerBody(p *dnsmessage.Parser, t dnsmessage.Type) (dnsmessage.ResourceBody, error) {
	switch t {
	case dnsmessage.TypeA:
		b, err := p.AResource()
		return &b, err
	case dnsmessage.TypeAAAA:
		b, err := p.AAAAResource()
		return &b, err
	case dnsmessage.TypePTR:
		b, err := p.PTRResource()
		return &b, err
	case dnsmessage.TypeSRV:
		b, err := p.SRVResource()
		return &b, err
	case dnsmessage.TypeTXT:
		b, err := p.TXTResource()
		return &b, err
	}
	return nil, p.SkipAnswer()
}

// fromLink reports whether src is on the interface's link: link-local, or
// within one of its networks (RFC 6762 §11).
func fromLink(src netip.Addr, nets []netip.Prefix) bool {
	src = src.Unmap().WithZone("")
	if src.IsLinkLocalUnicast() {
		return true
	}
	for _, n := range nets {
		if n.Contains(src) {
			return true
		}
	}
	return false
}

// addrsOf returns the addresses of nets: IPv4 ones first when v4 is true
// (the family of the socket), then the others.
func addrsOf(nets []netip.Prefix, v4 bool) []netip.Addr {
	var first, rest []netip.Addr
	for _, n := range nets {
		a := n.Addr().Unmap().WithZone("")
		if !a.IsValid() || a.IsUnspecified() || a.IsMulticast() {
			continue
		}
		if a.Is4() == v4 {
			first = append(first, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(first, rest...)
}

// appendNew appends rec unless it is in list already.
func appendNew(list []record, rec record) []record {
	for _, r := range list {
		if r.key == rec.key {
			return list
		}
	}
	return append(list, rec)
}

// additionals returns the records related to answers that are not
// answers themselves.
func additionals(answers, all []record, n names) []record {
	var out []record
	for _, a := range answers {
		for _, rec := range related(a, all, n) {
			if !containsKey(answers, rec.key) {
				out = appendNew(out, rec)
			}
		}
	}
	return out
}

func containsKey(list []record, key string) bool {
	for _, r := range list {
		if r.key == key {
			return true
		}
	}
	return false
}

// notSentWithin drops the records multicast on the interface less than a
// second ago (RFC 6762 §6).
func (r *Responder) notSentWithin(list []record, ifIndex int, group netip.AddrPort, now time.Time) []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []record
	for _, rec := range list {
		last, ok := r.sent[sentKey{ifIndex, group.Addr().Is6(), rec.key}]
		if !ok || now.Sub(last) >= time.Second || now.Before(last) {
			out = append(out, rec)
		}
	}
	return out
}

// markSent notes that list was multicast at now; entries older than a
// second are dropped, so the map holds at most a second's records.
func (r *Responder) markSent(list []record, ifIndex int, group netip.AddrPort, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, t := range r.sent {
		if now.Sub(t) >= time.Second || now.Before(t) {
			delete(r.sent, k)
		}
	}
	for _, rec := range list {
		r.sent[sentKey{ifIndex, group.Addr().Is6(), rec.key}] = now
	}
}

// spend takes one packet from the budget of MaxRepliesPerSecond; false when
// it is spent.
func (r *Responder) spend(now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := now.Sub(r.refilled); d > 0 {
		r.budget = min(MaxRepliesPerSecond, r.budget+d.Seconds()*MaxRepliesPerSecond)
	}
	r.refilled = now
	if r.budget < 1 {
		return false
	}
	r.budget--
	return true
}

// build packs a response: id and the questions echoed for a legacy
// unicast query (RFC 6762 §6.7), none otherwise (§6, §18.1); TTLs capped
// at maxTTL when it is not 0; the cache-flush bit on unique records when
// flush (§10.2; never in legacy answers). The additional records are left
// out when the whole would exceed MaxPacket; nil if even the answers do.
func build(id uint16, questions []dnsmessage.Question, answers, extra []record, maxTTL uint32, flush bool) []byte {
	for _, withExtra := range []bool{true, false} {
		b, err := pack(id, questions, answers, extra, withExtra, maxTTL, flush)
		if err == nil && len(b) <= MaxPacket {
			return b
		}
	}
	return nil
}

func pack(id uint16, questions []dnsmessage.Question, answers, extra []record, withExtra bool, maxTTL uint32, flush bool) ([]byte, error) {
	bld := dnsmessage.NewBuilder(make([]byte, 0, 512), dnsmessage.Header{ID: id, Response: true, Authoritative: true})
	bld.EnableCompression()
	if err := bld.StartQuestions(); err != nil {
		return nil, err
	}
	for _, q := range questions {
		q.Class &^= unicastResponse
		if err := bld.Question(q); err != nil {
			return nil, err
		}
	}
	if err := bld.StartAnswers(); err != nil {
		return nil, err
	}
	for _, rec := range answers {
		if err := add(&bld, rec, maxTTL, flush); err != nil {
			return nil, err
		}
	}
	if withExtra && len(extra) > 0 {
		if err := bld.StartAdditionals(); err != nil {
			return nil, err
		}
		for _, rec := range extra {
			if err := add(&bld, rec, maxTTL, flush); err != nil {
				return nil, err
			}
		}
	}
	return bld.Finish()
}

// add packs one record.
func add(bld *dnsmessage.Builder, rec record, maxTTL uint32, flush bool) error {
	class := dnsmessage.ClassINET
	if flush && rec.unique {
		class |= cacheFlush
	}
	ttl := rec.ttl
	if maxTTL > 0 && ttl > maxTTL {
		ttl = maxTTL
	}
	h := dnsmessage.ResourceHeader{Name: rec.name, Class: class, TTL: ttl}
	switch b := rec.body.(type) {
	case *dnsmessage.AResource:
		return bld.AResource(h, *b)
	case *dnsmessage.AAAAResource:
		return bld.AAAAResource(h, *b)
	case *dnsmessage.PTRResource:
		return bld.PTRResource(h, *b)
	case *dnsmessage.SRVResource:
		return bld.SRVResource(h, *b)
	case *dnsmessage.TXTResource:
		return bld.TXTResource(h, *b)
	}
	return fmt.Errorf("mdns: record type %v not packed", rec.typ)
}
