package mdns

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
)

var (
	lan      = netip.MustParsePrefix("192.168.1.50/24")
	lanV6    = netip.MustParsePrefix("fd00::50/64")
	querier  = netip.MustParseAddrPort("192.168.1.7:5353")
	t0       = time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	hostName = "flipbot.local."
	instName = "flipbot._http._tcp.local."
)

func newTestResponder(t *testing.T) *Responder {
	t.Helper()
	r, err := New(Config{Hostname: "flipbot", Port: 8080, Networks: func(int) []netip.Prefix { return []netip.Prefix{lan, lanV6} }})
	require.NoError(t, err)
	return r
}

// question is one question of a test query.
type question struct {
	name string
	typ  dnsmessage.Type
	qu   bool
}

// queryMsg packs a query with id, the questions and known answers.
func queryMsg(t testing.TB, id uint16, qs []question, known ...dnsmessage.Resource) []byte {
	t.Helper()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: id})
	require.NoError(t, b.StartQuestions())
	for _, q := range qs {
		class := dnsmessage.ClassINET
		if q.qu {
			class |= unicastResponse
		}
		require.NoError(t, b.Question(dnsmessage.Question{Name: dnsmessage.MustNewName(q.name), Type: q.typ, Class: class}))
	}
	require.NoError(t, b.StartAnswers())
	for _, k := range known {
		switch body := k.Body.(type) {
		case *dnsmessage.PTRResource:
			require.NoError(t, b.PTRResource(k.Header, *body))
		case *dnsmessage.AResource:
			require.NoError(t, b.AResource(k.Header, *body))
		}
	}
	msg, err := b.Finish()
	require.NoError(t, err)
	return msg
}

// reply is a parsed response.
type reply struct {
	header      dnsmessage.Header
	questions   []dnsmessage.Question
	answers     []dnsmessage.Resource
	additionals []dnsmessage.Resource
}

func parseReply(t testing.TB, b []byte) reply {
	t.Helper()
	var p dnsmessage.Parser
	h, err := p.Start(b)
	require.NoError(t, err)
	qs, err := p.AllQuestions()
	require.NoError(t, err)
	ans, err := p.AllAnswers()
	require.NoError(t, err)
	require.NoError(t, p.SkipAllAuthorities())
	add, err := p.AllAdditionals()
	require.NoError(t, err)
	return reply{h, qs, ans, add}
}

// summary lists records as "TYPE name data ttl flush".
func summary(rs []dnsmessage.Resource) []string {
	var out []string
	for _, r := range rs {
		flush := ""
		if r.Header.Class&cacheFlush != 0 {
			flush = " flush"
		}
		out = append(out, strings.TrimPrefix(bodyKey(r.Header.Type.String()+" "+r.Header.Name.String(), r.Body), "Type")+" ttl="+itoa(r.Header.TTL)+flush)
	}
	return out
}

func itoa(n uint32) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}

func TestAnswers(t *testing.T) {
	hostA := "A flipbot.local. 192.168.1.50 ttl=120 flush"
	hostAAAA := "AAAA flipbot.local. fd00::50 ttl=120 flush"
	ptr := "PTR _http._tcp.local. flipbot._http._tcp.local. ttl=4500"
	srv := "SRV flipbot._http._tcp.local. 0 0 8080 flipbot.local. ttl=120 flush"
	txt := "TXT flipbot._http._tcp.local. path=/ ttl=4500 flush"
	for _, tc := range []struct {
		name        string
		qs          []question
		answers     []string
		additionals []string
	}{
		{"A of the host name: its address, the other family as additional (RFC 6762 §6.2)",
			[]question{{hostName, dnsmessage.TypeA, false}}, []string{hostA}, []string{hostAAAA}},
		{"AAAA", []question{{hostName, dnsmessage.TypeAAAA, false}}, []string{hostAAAA}, []string{hostA}},
		{"the host name in another case", []question{{"FlipBot.Local.", dnsmessage.TypeA, false}}, []string{hostA}, []string{hostAAAA}},
		{"ANY of the host name", []question{{hostName, dnsmessage.TypeALL, false}}, []string{hostA, hostAAAA}, nil},
		{"browsing _http._tcp: PTR, with SRV, TXT and addresses (RFC 6763 §12.1)",
			[]question{{"_http._tcp.local.", dnsmessage.TypePTR, false}}, []string{ptr}, []string{hostA, hostAAAA, srv, txt}},
		{"SRV of the instance, with the addresses (RFC 6763 §12.2)",
			[]question{{instName, dnsmessage.TypeSRV, false}}, []string{srv}, []string{hostA, hostAAAA}},
		{"TXT", []question{{instName, dnsmessage.TypeTXT, false}}, []string{txt}, nil},
		{"service types (RFC 6763 §9)", []question{{"_services._dns-sd._udp.local.", dnsmessage.TypePTR, false}},
			[]string{"PTR _services._dns-sd._udp.local. _http._tcp.local. ttl=4500"}, nil},
		{"two questions, one answer each", []question{{hostName, dnsmessage.TypeA, false}, {instName, dnsmessage.TypeTXT, false}},
			[]string{hostA, txt}, []string{hostAAAA}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newTestResponder(t)
			out := r.Handle(queryMsg(t, 0, tc.qs), querier, 3, groupV4, t0)
			require.Len(t, out, 1)
			assert.Equal(t, groupV4, out[0].To, "multicast to the group")
			assert.Equal(t, 3, out[0].IfIndex, "out of the interface the query came in on")
			rep := parseReply(t, out[0].Data)
			assert.True(t, rep.header.Response)
			assert.True(t, rep.header.Authoritative, "RFC 6762 §18.4")
			assert.Zero(t, rep.header.ID, "RFC 6762 §18.1")
			assert.Empty(t, rep.questions, "RFC 6762 §6: no questions in a multicast response")
			assert.ElementsMatch(t, tc.answers, summary(rep.answers))
			assert.ElementsMatch(t, tc.additionals, summary(rep.additionals))
		})
	}
}

func TestNoAnswer(t *testing.T) {
	r := newTestResponder(t)
	q := queryMsg(t, 0, []question{{hostName, dnsmessage.TypeA, false}})
	response := append([]byte(nil), q...)
	response[2] |= 0x80 // QR
	opcode := append([]byte(nil), q...)
	opcode[2] |= 0x10 // opcode 2
	rcode := append([]byte(nil), q...)
	rcode[3] |= 0x03
	for _, tc := range []struct {
		name string
		msg  []byte
		src  netip.AddrPort
	}{
		{"another host's name", queryMsg(t, 0, []question{{"printer.local.", dnsmessage.TypeA, false}}), querier},
		{"another service", queryMsg(t, 0, []question{{"_ipp._tcp.local.", dnsmessage.TypePTR, false}}), querier},
		{"a type the name does not have", queryMsg(t, 0, []question{{hostName, dnsmessage.TypeMX, false}}), querier},
		{"a response (no probing or conflicts here)", response, querier},
		{"an opcode other than query (RFC 6762 §18.3)", opcode, querier},
		{"a response code (RFC 6762 §18.11)", rcode, querier},
		{"a source off the link (RFC 6762 §11)", q, netip.MustParseAddrPort("203.0.113.9:5353")},
		{"empty", nil, querier},
		{"truncated", q[:len(q)-3], querier},
		{"too large", append(q, make([]byte, MaxPacket)...), querier},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Empty(t, r.Handle(tc.msg, tc.src, 0, groupV4, t0))
		})
	}
	t.Run("a link-local source is on the link", func(t *testing.T) {
		assert.Len(t, r.Handle(q, netip.MustParseAddrPort("169.254.3.4:5353"), 0, groupV4, t0), 1)
	})
}

func TestUnicastAnswers(t *testing.T) {
	t.Run("QU bit: to the querier (RFC 6762 §5.4)", func(t *testing.T) {
		r := newTestResponder(t)
		out := r.Handle(queryMsg(t, 0, []question{{hostName, dnsmessage.TypeA, true}}), querier, 3, groupV4, t0)
		require.Len(t, out, 1)
		assert.Equal(t, querier, out[0].To)
		rep := parseReply(t, out[0].Data)
		assert.Equal(t, []string{"A flipbot.local. 192.168.1.50 ttl=120 flush"}, summary(rep.answers))
	})
	t.Run("QU and QM questions: one packet each", func(t *testing.T) {
		r := newTestResponder(t)
		out := r.Handle(queryMsg(t, 0, []question{{hostName, dnsmessage.TypeA, true}, {instName, dnsmessage.TypeSRV, false}}), querier, 3, groupV4, t0)
		require.Len(t, out, 2)
		assert.Equal(t, querier, out[0].To)
		assert.Equal(t, groupV4, out[1].To)
	})
	t.Run("legacy unicast, a source port other than 5353 (RFC 6762 §6.7)", func(t *testing.T) {
		r := newTestResponder(t)
		src := netip.MustParseAddrPort("192.168.1.7:40000")
		out := r.Handle(queryMsg(t, 0x1234, []question{{hostName, dnsmessage.TypeA, false}}), src, 3, groupV4, t0)
		require.Len(t, out, 1)
		assert.Equal(t, src, out[0].To)
		rep := parseReply(t, out[0].Data)
		assert.Equal(t, uint16(0x1234), rep.header.ID, "the query's ID")
		require.Len(t, rep.questions, 1, "the question repeated")
		assert.Equal(t, hostName, rep.questions[0].Name.String())
		assert.Equal(t, []string{"A flipbot.local. 192.168.1.50 ttl=10"}, summary(rep.answers), "TTL ≤ 10 s, no cache-flush bit")
		assert.Equal(t, []string{"AAAA flipbot.local. fd00::50 ttl=10"}, summary(rep.additionals))
		// Legacy answers are not multicast: asking again at once is answered.
		assert.Len(t, r.Handle(queryMsg(t, 0x1235, []question{{hostName, dnsmessage.TypeA, false}}), src, 3, groupV4, t0), 1)
	})
}

func TestMulticastAtMostOnceASecond(t *testing.T) {
	r := newTestResponder(t)
	q := queryMsg(t, 0, []question{{hostName, dnsmessage.TypeA, false}})
	require.Len(t, r.Handle(q, querier, 3, groupV4, t0), 1)
	assert.Empty(t, r.Handle(q, querier, 3, groupV4, t0.Add(999*time.Millisecond)), "RFC 6762 §6: not again within a second")
	assert.Len(t, r.Handle(q, querier, 4, groupV4, t0.Add(999*time.Millisecond)), 1, "another interface has its own second")
	assert.Len(t, r.Handle(q, querier, 3, groupV6, t0.Add(999*time.Millisecond)), 1, "so has the other family")
	assert.Len(t, r.Handle(q, querier, 3, groupV4, t0.Add(time.Second)), 1, "a second later")
	// A QU question is answered to the querier whatever was multicast.
	qu := queryMsg(t, 0, []question{{hostName, dnsmessage.TypeA, true}})
	assert.Len(t, r.Handle(qu, querier, 3, groupV4, t0.Add(time.Second)), 1)
}

func TestReplyBudget(t *testing.T) {
	r := newTestResponder(t)
	src := netip.MustParseAddrPort("192.168.1.7:40000")
	q := queryMsg(t, 1, []question{{hostName, dnsmessage.TypeA, false}})
	sent := 0
	for range 3 * MaxRepliesPerSecond {
		sent += len(r.Handle(q, src, 0, groupV4, t0))
	}
	assert.Equal(t, MaxRepliesPerSecond, sent, "a flood at one instant")
	assert.Len(t, r.Handle(q, src, 0, groupV4, t0.Add(time.Second/MaxRepliesPerSecond)), 1, "refilled one per 1/MaxRepliesPerSecond s")
	assert.Empty(t, r.Handle(q, src, 0, groupV4, t0.Add(time.Second/MaxRepliesPerSecond)))
}

func TestKnownAnswerSuppression(t *testing.T) {
	ptr := func(ttl uint32) dnsmessage.Resource {
		return dnsmessage.Resource{
			Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName("_http._tcp.local."), Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET, TTL: ttl},
			Body:   &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName("FLIPBOT._http._tcp.local.")},
		}
	}
	other := dnsmessage.Resource{
		Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName("_http._tcp.local."), Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET, TTL: 4500},
		Body:   &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName("printer._http._tcp.local.")},
	}
	browse := []question{{"_http._tcp.local.", dnsmessage.TypePTR, false}}
	for _, tc := range []struct {
		name   string
		known  []dnsmessage.Resource
		answer bool
	}{
		{"known with its full TTL: left out (RFC 6762 §7.1)", []dnsmessage.Resource{ptr(4500)}, false},
		{"known with half its TTL left: left out", []dnsmessage.Resource{ptr(2250)}, false},
		{"known with less than half: answered", []dnsmessage.Resource{ptr(2249)}, true},
		{"another instance known: answered", []dnsmessage.Resource{other}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := newTestResponder(t).Handle(queryMsg(t, 0, browse, tc.known...), querier, 0, groupV4, t0)
			assert.Equal(t, tc.answer, len(out) == 1)
		})
	}
}

func TestAnnouncement(t *testing.T) {
	r := newTestResponder(t)
	rep := parseReply(t, r.announcement(2, groupV4, false, t0))
	assert.Zero(t, rep.header.ID)
	assert.True(t, rep.header.Response)
	assert.ElementsMatch(t, []string{
		"A flipbot.local. 192.168.1.50 ttl=120 flush",
		"AAAA flipbot.local. fd00::50 ttl=120 flush",
		"PTR _http._tcp.local. flipbot._http._tcp.local. ttl=4500",
		"SRV flipbot._http._tcp.local. 0 0 8080 flipbot.local. ttl=120 flush",
		"TXT flipbot._http._tcp.local. path=/ ttl=4500 flush",
	}, summary(rep.answers))
	// What was announced counts as multicast for the one-second rule.
	q := queryMsg(t, 0, []question{{hostName, dnsmessage.TypeA, false}})
	assert.Empty(t, r.Handle(q, querier, 2, groupV4, t0.Add(500*time.Millisecond)))

	bye := parseReply(t, r.announcement(2, groupV4, true, t0))
	require.Len(t, bye.answers, 5)
	for _, a := range bye.answers {
		assert.Zero(t, a.Header.TTL, "goodbye: TTL 0 (RFC 6762 §10.1)")
	}

	none, err := New(Config{Hostname: "flipbot", Port: 8080, Networks: func(int) []netip.Prefix { return nil }})
	require.NoError(t, err)
	assert.Nil(t, none.announcement(2, groupV4, false, t0), "no address yet: nothing to announce")
}

func TestNewChecksTheConfig(t *testing.T) {
	nets := func(int) []netip.Prefix { return nil }
	for _, tc := range []struct {
		name string
		cfg  Config
		host string
	}{
		{"gokrazy's hostname", Config{Hostname: "flipbot", Port: 8080, Networks: nets}, "flipbot.local"},
		{"a name with a domain is cut", Config{Hostname: "pi-7.lan", Port: 80, Networks: nets}, "pi-7.local"},
		{"empty", Config{Port: 8080, Networks: nets}, ""},
		{"an underscore", Config{Hostname: "flip_bot", Port: 8080, Networks: nets}, ""},
		{"a leading hyphen", Config{Hostname: "-flipbot", Port: 8080, Networks: nets}, ""},
		{"64 characters", Config{Hostname: strings.Repeat("a", 64), Port: 8080, Networks: nets}, ""},
		{"an instance with a dot", Config{Hostname: "flipbot", Instance: "flip.bot", Port: 8080, Networks: nets}, ""},
		{"no port", Config{Hostname: "flipbot", Networks: nets}, ""},
		{"no networks", Config{Hostname: "flipbot", Port: 8080}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := New(tc.cfg)
			if tc.host == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.host, r.Host())
		})
	}
}

// FuzzHandle feeds the handler any packet: it must not panic, and what it
// sends must be a well-formed response within MaxPacket.
func FuzzHandle(f *testing.F) {
	f.Add(queryMsg(f, 0, []question{{hostName, dnsmessage.TypeA, false}}), uint16(5353))
	f.Add(queryMsg(f, 7, []question{{"_http._tcp.local.", dnsmessage.TypePTR, true}, {instName, dnsmessage.TypeALL, false}}), uint16(40000))
	f.Add([]byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1}, uint16(5353)) // a name pointing at itself
	r, err := New(Config{Hostname: "flipbot", Port: 8080, Networks: func(int) []netip.Prefix { return []netip.Prefix{lan, lanV6} }})
	require.NoError(f, err)
	now := t0
	f.Fuzz(func(t *testing.T, b []byte, port uint16) {
		now = now.Add(time.Second) // every packet a second later: the rate limits do not hide answers
		for _, p := range r.Handle(b, netip.AddrPortFrom(querier.Addr(), port), 1, groupV4, now) {
			require.LessOrEqual(t, len(p.Data), MaxPacket)
			var parser dnsmessage.Parser
			h, err := parser.Start(p.Data)
			require.NoError(t, err)
			require.True(t, h.Response)
			_, err = parser.AllQuestions()
			require.NoError(t, err)
			_, err = parser.AllAnswers()
			require.NoError(t, err)
		}
	})
}
