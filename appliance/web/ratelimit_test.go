package web

import (
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFailureLimiter(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	clock := func() time.Time { return now }
	l := newFailureLimiter(clock, time.Minute, 3, 5)
	for i := 0; i < 3; i++ {
		try, _ := l.begin("a")
		require.NotNil(t, try, "attempt %d", i)
		require.False(t, try.failed())
	}
	try, wait := l.begin("a")
	assert.Nil(t, try, "4th try of the same client within the window")
	assert.Equal(t, time.Minute, wait)
	try, _ = l.begin("b")
	require.NotNil(t, try, "another client is not blocked by a's failures")
	try.ok()
	try, _ = l.begin("b")
	require.NotNil(t, try, "a right try is given back")
	assert.False(t, try.failed())
	try, _ = l.begin("c")
	assert.True(t, try.failed(), "5 failures overall reach the global count")
	try, _ = l.begin("d")
	assert.NotNil(t, try, "the global count blocks nobody")
	now = now.Add(time.Minute)
	try, _ = l.begin("a")
	assert.NotNil(t, try, "the window has passed")
}

func TestFailureLimiterCountsTriesInProgress(t *testing.T) {
	l := newFailureLimiter(time.Now, time.Minute, 3, 100)
	var tries []*limitTry
	for range 3 {
		try, _ := l.begin("a")
		require.NotNil(t, try)
		tries = append(tries, try)
	}
	try, _ := l.begin("a")
	assert.Nil(t, try, "three tries in progress use the budget")
	tries[0].ok()
	try, _ = l.begin("a")
	assert.NotNil(t, try, "a try given back frees its place")
}

func TestFailureLimiterIPv6Network(t *testing.T) {
	l := newFailureLimiter(time.Now, time.Minute, 2, 100)
	for _, a := range []string{"fd00::1", "fd00::2"} {
		try, _ := l.begin(a)
		require.NotNil(t, try)
		try.failed()
	}
	try, _ := l.begin("fd00::ffff:1")
	assert.Nil(t, try, "one /64 is one client")
	try, _ = l.begin("fd00:0:0:1::1")
	assert.NotNil(t, try, "another /64 is another")
}

// TestLimiterKey: the limits apply per IPv4 address and per IPv6 /64,
// whatever the zone (net.ParseIP refused "fe80::1%eth0", so each
// link-local address of a host was a client of its own) and with
// IPv4-mapped addresses as IPv4.
func TestLimiterKey(t *testing.T) {
	for _, tc := range []struct{ client, want string }{
		{"192.168.1.23", "192.168.1.23"},
		{"::ffff:192.168.1.23", "192.168.1.23"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"fe80::abcd:1%wlan0", "fe80::/64"},
		{"fe80::1", "fe80::/64"},
		{"::1", "::/64"},
		{"not an address", "not an address"},
	} {
		assert.Equal(t, tc.want, limiterKey(tc.client), tc.client)
	}
}

// TestLinkLocalClientsShareTheirBudget: tries from the addresses of one
// link-local /64 (any zone) count against one budget of FailPerClient.
func TestLinkLocalClientsShareTheirBudget(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	l := newFailureLimiter(func() time.Time { return now }, FailWindow, FailPerClient, 1000)
	allowed := 0
	for i := range 50 {
		client := netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 15: byte(i + 1)}).WithZone([]string{"eth0", "wlan0"}[i%2]).String()
		if try, _ := l.begin(client); try != nil {
			allowed++
			try.failed()
		}
	}
	assert.Equal(t, FailPerClient, allowed)
}

// FuzzLimiterKey: every address has a key that is an IPv4 address or an
// IPv6 /64 without a zone, the same for every address of that /64.
func FuzzLimiterKey(f *testing.F) {
	for _, s := range []string{"192.168.1.1", "::ffff:10.0.0.1", "fe80::1%eth0", "2001:db8::1", "::", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, client string) {
		key := limiterKey(client)
		a, err := netip.ParseAddr(client)
		if err != nil {
			require.Equal(t, client, key)
			return
		}
		a = a.WithZone("").Unmap()
		if a.Is4() {
			require.Equal(t, a.String(), key)
			return
		}
		p, err := netip.ParsePrefix(key)
		require.NoError(t, err, key)
		require.Equal(t, 64, p.Bits())
		require.True(t, p.Contains(a), "%s in %s", a, p)
		b := a.As16()
		b[15] ^= 0xff
		require.Equal(t, key, limiterKey(netip.AddrFrom16(b).WithZone("other").String()), "same /64")
	})
}
