package mdns

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// The names and TTLs of RFC 6762 and RFC 6763.
const (
	// serviceType is the DNS-SD service of a web page (RFC 6763 §7).
	serviceType = "_http._tcp.local."
	// servicesName lists the service types (RFC 6763 §9).
	servicesName = "_services._dns-sd._udp.local."
	// hostTTL is the TTL of records with a host name in them, otherTTL of
	// the others (RFC 6762 §10).
	hostTTL  = 120
	otherTTL = 4500
	// legacyTTL caps the TTLs of an answer to a legacy unicast query
	// (RFC 6762 §6.7).
	legacyTTL = 10
	// cacheFlush is the top bit of a unique record's class (RFC 6762
	// §10.2); unicastResponse the top bit of a question's class (§5.4).
	cacheFlush      = 1 << 15
	unicastResponse = 1 << 15
)

// record is one resource record, with its identity (type, name and data)
// for the rate limit and known-answer suppression.
type record struct {
	name   dnsmessage.Name
	typ    dnsmessage.Type
	ttl    uint32
	unique bool // the cache-flush bit: only this device owns the record set
	body   dnsmessage.ResourceBody
	key    string
}

// names are the names the responder answers for, with the trailing dot,
// as given (they are compared without regard to case).
type names struct {
	host     string // "flipbot.local."
	instance string // "flipbot._http._tcp.local."
}

// checkLabel accepts a host name's label (RFC 1123): 1–63 letters, digits
// and hyphens, not starting or ending with a hyphen.
func checkLabel(s string) error {
	if len(s) == 0 || len(s) > 63 {
		return fmt.Errorf("host name %q: 1 to 63 characters", s)
	}
	for i, c := range s {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' && i > 0 && i < len(s)-1
		if !ok {
			return fmt.Errorf("host name %q: only letters, digits and inner hyphens", s)
		}
	}
	return nil
}

// checkInstance accepts a service instance name: 1–63 bytes of UTF-8
// without control characters or dots (RFC 6763 §4.1.1 allows dots, escaped;
// this responder does not need them).
func checkInstance(s string) error {
	if len(s) == 0 || len(s) > 63 {
		return fmt.Errorf("instance name %q: 1 to 63 bytes", s)
	}
	for _, c := range s {
		if c < 0x20 || c == 0x7f || c == '.' || c == '\\' || c == 0xfffd {
			return fmt.Errorf("instance name %q: no dots, backslashes or control characters", s)
		}
	}
	return nil
}

// newRecord makes a record; the names are valid (checked by New).
func newRecord(name string, typ dnsmessage.Type, ttl uint32, unique bool, body dnsmessage.ResourceBody) record {
	return record{
		name: dnsmessage.MustNewName(name), typ: typ, ttl: ttl, unique: unique, body: body,
		key: strings.ToLower(bodyKey(typ.String()+" "+name, body)),
	}
}

// records returns every record for an interface with the given addresses:
// the host's addresses, the page's service and the service type.
func (r *Responder) records(addrs []netip.Addr) []record {
	n := r.names
	var out []record
	for _, a := range addrs {
		a = a.Unmap().WithZone("")
		if a.Is4() {
			out = append(out, newRecord(n.host, dnsmessage.TypeA, hostTTL, true, &dnsmessage.AResource{A: a.As4()}))
		} else {
			out = append(out, newRecord(n.host, dnsmessage.TypeAAAA, hostTTL, true, &dnsmessage.AAAAResource{AAAA: a.As16()}))
		}
	}
	out = append(out,
		newRecord(serviceType, dnsmessage.TypePTR, otherTTL, false, &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(n.instance)}),
		newRecord(n.instance, dnsmessage.TypeSRV, hostTTL, true, &dnsmessage.SRVResource{Port: uint16(r.cfg.Port), Target: dnsmessage.MustNewName(n.host)}),
		newRecord(n.instance, dnsmessage.TypeTXT, otherTTL, true, &dnsmessage.TXTResource{TXT: []string{"path=/"}}),
		newRecord(servicesName, dnsmessage.TypePTR, otherTTL, false, &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(serviceType)}),
	)
	return out
}

// matches reports whether rec answers a question for name and type t
// (TypeALL: any).
func (rec record) matches(name string, t dnsmessage.Type) bool {
	return (t == rec.typ || t == dnsmessage.TypeALL) && strings.EqualFold(rec.name.String(), name)
}

// related returns the records that go with an answer as additional ones:
// for the service's PTR its SRV, TXT and the host's addresses (RFC 6763
// §12.1); for the SRV the addresses (§12.2); for an address the other
// addresses of the host (RFC 6762 §6.2).
func related(ans record, all []record, n names) []record {
	var out []record
	for _, rec := range all {
		rn := rec.name.String()
		isHost := strings.EqualFold(rn, n.host) && (rec.typ == dnsmessage.TypeA || rec.typ == dnsmessage.TypeAAAA)
		switch ans.typ {
		case dnsmessage.TypePTR:
			if strings.EqualFold(ans.name.String(), serviceType) && (strings.EqualFold(rn, n.instance) || isHost) {
				out = append(out, rec)
			}
		case dnsmessage.TypeSRV, dnsmessage.TypeA, dnsmessage.TypeAAAA:
			if isHost {
				out = append(out, rec)
			}
		}
	}
	return out
}

// knownKey is a received record's identity, as record.key, for the types
// this responder owns ("" for others).
func knownKey(h dnsmessage.ResourceHeader, body dnsmessage.ResourceBody) string {
	return strings.ToLower(bodyKey(h.Type.String()+" "+h.Name.String(), body))
}

// bodyKey is knownKey before the case is folded.
func bodyKey(prefix string, body dnsmessage.ResourceBody) string {
	switch b := body.(type) {
	case *dnsmessage.AResource:
		return prefix + " " + netip.AddrFrom4(b.A).String()
	case *dnsmessage.AAAAResource:
		return prefix + " " + netip.AddrFrom16(b.AAAA).String()
	case *dnsmessage.PTRResource:
		return prefix + " " + b.PTR.String()
	case *dnsmessage.SRVResource:
		return prefix + " " + fmt.Sprintf("%d %d %d %s", b.Priority, b.Weight, b.Port, b.Target.String())
	case *dnsmessage.TXTResource:
		return prefix + " " + strings.Join(b.TXT, "\x00")
	}
	return ""
}
