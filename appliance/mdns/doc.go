// Package mdns makes the device findable by name on its local network: it
// answers multicast DNS (RFC 6762) for HOSTNAME.local with the device's
// addresses, and announces its web page over DNS-based service discovery
// (RFC 6763) as the instance HOSTNAME of _http._tcp.local, so that
// http://flipbot.local:8080/ works from macOS, iOS, Linux and Windows on the
// same network without a DNS server.
//
// Concepts:
//
//   - The records. A and AAAA for HOSTNAME.local (the addresses of the
//     interface a query came in on, within the page's addresses), PTR
//     _http._tcp.local → HOSTNAME._http._tcp.local, its SRV (the page's port
//     on HOSTNAME.local) and TXT ("path=/"), and the service type's PTR
//     under _services._dns-sd._udp.local (RFC 6763 §9). Unique records carry
//     the cache-flush bit (RFC 6762 §10.2); answers carry the related
//     records as additional records (RFC 6763 §12, RFC 6762 §6.2).
//   - Answering ([Responder.Handle]). Responses are ignored (there is no
//     probing or conflict resolution: the name is gokrazy's hostname, the
//     owner's choice), as are messages with an opcode or a response code
//     (RFC 6762 §18), queries from a source outside the interface's
//     networks (§11), and malformed packets. A query from port 5353 is
//     answered by multicast to the group, or by unicast to the querier when
//     its question has the QU bit (§5.4); one from another port is a legacy
//     unicast query, answered to its source with its ID, its questions and
//     TTLs of at most 10 s (§6.7). Answers the querier lists as known with at
//     least half their TTL left are left out (§7.1). Answers are sent at once,
//     without the 20–120 ms delay §6 allows for shared records: this
//     responder is the only one for its names.
//   - Bounds. A packet is read into [MaxPacket] bytes and an answer never
//     exceeds them (§17); at most [MaxQuestions] questions and
//     [MaxKnownAnswers] known answers of a query are looked at; a record is
//     multicast on an interface at most once a second (§6); at most
//     [MaxRepliesPerSecond] packets are sent a second in all, the rest
//     dropped.
//   - Announcing ([Responder.Serve]). Every record is sent unsolicited twice,
//     a second apart, on every interface the socket has joined, at start and
//     whenever an interface or its addresses change (§8.3), and once with a
//     TTL of 0 when Serve stops (goodbye, §10.1).
//   - The socket. Serve reads and writes through a [Conn]: on the device a
//     [Socket] (UDP port 5353, the group joined on every multicast
//     interface, the interface of each packet known; IP TTL 255, §11), in
//     tests a plain UDP socket ([UDPConn]) or a fake, so that the logic is
//     tested on loopback without multicast.
//
// Files: responder.go ([Responder], [Config], [Responder.Handle]),
// records.go (the records and the names), serve.go ([Conn],
// [Responder.Serve], [UDPConn]), socket.go ([Socket], [Listen]).
//
// It imports nothing of the module: the standard library and
// golang.org/x/net (dns/dnsmessage, ipv4, ipv6). The appliance starts it on
// the device only (never on a PC), with the page's port and addresses.
package mdns
