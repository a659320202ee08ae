package state

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot"
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
	seen := map[string]bool{}
	for _, k := range Kinds() {
		b, err := k.MarshalText()
		require.NoError(t, err)
		assert.NotContains(t, string(b), "kind(", "%d has a name", int(k))
		assert.False(t, seen[string(b)], "%s named once", b)
		seen[string(b)] = true
		var back Kind
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, k, back)
		assert.NotEqual(t, k.String(), k.Text(), "%s has a text of its own", k)
	}
	assert.Len(t, seen, int(KindEngineFailed)+1, "every kind, the last included")
	assert.Equal(t, "kind(99)", Kind(99).String())
	assert.Equal(t, "kind(-1)", Kind(-1).Text())
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
	s := Status{PairingCode: "123456", Token: TokenStored, Report: Report{Detail: "x"}}
	b, err := s.JSON()
	require.NoError(t, err)
	assert.NotContains(t, string(b), "123456")
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	assert.Contains(t, m, "state")
	assert.Contains(t, m, "device")
}

// The status's move counts read as the bot's log writes them: the text
// and the total are the bot's own (bot.MoveCounts), for every shape of
// counts, the page's "· 3 fallback" and "moves: …" included.
func TestMoveCountsReadAsTheBotsLog(t *testing.T) {
	for _, c := range []MoveCounts{
		{},
		{Engine: 1},
		{Engine: 30, Forced: 2, Fallbacks: map[string]int{"timeout": 2, "failed": 1}},
		{Fallbacks: map[string]int{"starting": 4}},
		{Forced: 5, Fallbacks: map[string]int{}},
	} {
		b := bot.MoveCounts{Engine: c.Engine, Forced: c.Forced, Fallbacks: c.Fallbacks}
		assert.Equal(t, b.String(), c.String())
		assert.Equal(t, b.FallbackTotal(), c.FallbackTotal())
	}
	c := MoveCounts{Engine: 30, Forced: 2, Fallbacks: map[string]int{"timeout": 2, "failed": 1}}
	assert.Equal(t, "30 engine, 2 forced, 3 fallback (failed 1, timeout 2)", c.String())
	assert.Equal(t, 3, c.FallbackTotal())
}
