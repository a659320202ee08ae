package appliance

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStatusKind(t *testing.T) {
	running := func(f func(*Status)) Status {
		s := Status{Phase: PhaseRunning, Token: TokenStored, Storage: Storage{OK: true}}
		f(&s)
		return s
	}
	tests := []struct {
		name string
		st   Status
		want Kind
	}{
		{"starting", Status{Phase: PhaseStarting}, KindStarting},
		{"waiting for network/clock", Status{Phase: PhaseWaitingClock, Token: TokenStored}, KindWaitingClock},
		{"setup needed", running(func(s *Status) { s.Token = TokenNone }), KindSetupNeeded},
		{"storage missing without env token", running(func(s *Status) { s.Token, s.Storage.OK = TokenNone, false }), KindStorageMissing},
		{"storage missing but env token runs", running(func(s *Status) { s.Token, s.Storage.OK, s.Online = TokenEnv, false, true }), KindOnlineIdle},
		{"connecting", running(func(s *Status) {}), KindConnecting},
		{"no network", running(func(s *Status) { s.NetworkDown = true }), KindNoNetwork},
		{"online idle", running(func(s *Status) { s.Online = true }), KindOnlineIdle},
		{"in game", running(func(s *Status) { s.Online, s.Matches = true, []Match{{ID: 1}} }), KindInGame},
		{"token rejected", running(func(s *Status) { s.Rejected = true }), KindTokenRejected},
		{"stopping", running(func(s *Status) { s.Phase = PhaseStopping; s.Online = true }), KindStopping},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.st.deriveKind())
		})
	}
}

func TestKindText(t *testing.T) {
	for k := KindStarting; k <= KindStopping; k++ {
		b, err := k.MarshalText()
		require.NoError(t, err)
		var back Kind
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, k, back)
		assert.NotEmpty(t, k.Text())
	}
	var k Kind
	require.Error(t, k.UnmarshalText([]byte("bogus")))
	assert.Equal(t, "Waiting for network/clock", KindWaitingClock.Text())
}

func TestHubSnapshotIsACopy(t *testing.T) {
	h := NewHub(nil)
	h.Update(func(s *Status) {
		s.Phase, s.Token, s.Online = PhaseRunning, TokenStored, true
		s.Matches = []Match{{ID: 7, Legs: []Leg{{Board: []int{1, 2}}}}}
	})
	snap := h.Snapshot()
	assert.Equal(t, KindInGame, snap.Kind)
	snap.Matches[0].Legs[0].Board[0] = 0
	assert.Equal(t, 1, h.Snapshot().Matches[0].Legs[0].Board[0], "a snapshot must not share the hub's slices")
}

func TestHubSubscribe(t *testing.T) {
	h := NewHub(nil)
	c, cancel := h.Subscribe()
	defer cancel()
	h.Update(func(s *Status) { s.Phase = PhaseRunning })
	select {
	case <-c:
	case <-time.After(5 * time.Second):
		t.Fatal("no wake-up after Update")
	}
	h.Update(func(s *Status) {})
	h.Update(func(s *Status) {}) // merged with the previous: must not block
	<-c
}

func TestStatusJSONHidesSecrets(t *testing.T) {
	s := Status{PairingCode: "123456", Token: TokenStored, Detail: "x"}
	b, err := s.JSON()
	require.NoError(t, err)
	assert.NotContains(t, string(b), "123456")
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Contains(t, m, "state")
	assert.Contains(t, m, "device")
}

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

func TestCodeMatches(t *testing.T) {
	assert.True(t, codeMatches("123456", "123456"))
	assert.True(t, codeMatches("123 456", "123456"))
	assert.True(t, codeMatches("123-456", "123456"))
	assert.False(t, codeMatches("123457", "123456"))
	assert.False(t, codeMatches("", ""), "no code, no match")
	assert.False(t, codeMatches("12345", "123456"))
	c, err := newPairingCode()
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9]{6}$`, c)
}

func TestRedact(t *testing.T) {
	assert.Equal(t, "dial: [token] x", redact("dial: "+tokA+" x", tokA))
	assert.True(t, errors.Is(ErrTokenRejected, ErrTokenRejected))
}

func FuzzCodeMatches(f *testing.F) {
	f.Add("123456", "123456")
	f.Add("12 34 56", "123456")
	f.Fuzz(func(t *testing.T, typed, code string) {
		if codeMatches(typed, code) && code == "" {
			t.Fatal("matched an empty code")
		}
	})
}
