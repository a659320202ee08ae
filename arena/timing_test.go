package arena

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestClockRunsOnSideToMove: the mover's clock falls by the time it took;
// the other clock and the other leg's stay.
func TestClockRunsOnSideToMove(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	id := runningPair(t, f, a, b, "std")
	f.clock.Advance(4200 * time.Millisecond)
	m := a.match(id)
	l := m.State.Legs[0]
	assert.Equal(t, []float64{60000, 60000}, l.ClocksMS, "reference values until a move")
	status, ans := a.call(map[string]any{"action": "agent_move", "match_id": id, "leg": 0, "revision": 0, "move": l.LegalMoves[0]})
	require.Equal(t, 200, status, "%v", ans)
	l = a.match(id).State.Legs[0]
	assert.Equal(t, []float64{55800, 60000}, l.ClocksMS)
	assert.Equal(t, t0.Add(4200*time.Millisecond).UnixMilli(), l.TurnStartedMS)
	require.Len(t, l.History, 1)
	assert.Equal(t, float64(0), l.History[0]["participant"])
}

// TestTimeout: a side whose clock runs out loses that leg by the full
// board in result_discs (anti: gets the full board); the other leg goes
// on; the totals use result_discs.
func TestTimeout(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		usable int
	}{{"std", 64}, {"anti", 64}, {"grand", 100}, {"octagon", 88}, {"reversi", 64}} {
		t.Run(tc.mode, func(t *testing.T) {
			f := newFixture(t, Config{ClockPerLeg: 10 * time.Second, NoFirstMoveAbort: true})
			a, b := f.client(t, "ta"), f.client(t, "tb")
			id := runningPair(t, f, a, b, tc.mode)
			// beta plays its first move in leg 1 (it is black there); alpha never moves.
			f.clock.Advance(time.Second)
			l1 := b.match(id).State.Legs[1]
			status, ans := b.call(map[string]any{"action": "agent_move", "match_id": id, "leg": 1, "revision": 0, "move": l1.LegalMoves[0]})
			require.Equal(t, 200, status, "%v", ans)
			f.clock.Advance(9 * time.Second)
			b.poll()
			m := b.match(id)
			require.Equal(t, "running", m.Status)
			l0 := m.State.Legs[0]
			assert.Equal(t, "timeout", l0.Status)
			assert.Equal(t, float64(0), l0.ClocksMS[0])
			want := []int{0, tc.usable}
			if tc.mode == "anti" {
				want = []int{tc.usable, 0}
			}
			assert.Equal(t, want, l0.ResultDiscs)
			assert.Equal(t, "active", m.State.Legs[1].Status)
			status, ans = a.call(map[string]any{"action": "agent_move", "match_id": id, "leg": 0, "revision": l0.Revision, "move": 19})
			assert.Equal(t, 409, status)
			assert.Equal(t, "match timed out", ans["error"])
			// Leg 1: alpha (white) times out too 10 s after beta's move.
			f.clock.Advance(time.Second)
			m = b.match(id)
			require.Equal(t, "finished", m.Status)
			assert.Equal(t, "double_timeout", *m.State.FinishReason)
			require.NotNil(t, m.State.Winner)
			assert.Equal(t, 1, *m.State.Winner, "beta wins on result_discs")
			status, _ = b.call(map[string]any{"action": "agent_move", "match_id": id, "leg": 1, "revision": 0, "move": 19})
			assert.Equal(t, 409, status)
		})
	}
}

// TestNoFirstMoveAbort: a participant without a move 30 s after the start
// aborts the match, unrated.
func TestNoFirstMoveAbort(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	id := runningPair(t, f, a, b, "std")
	l0 := a.match(id).State.Legs[0]
	status, _ := a.call(map[string]any{"action": "agent_move", "match_id": id, "leg": 0, "revision": 0, "move": l0.LegalMoves[0]})
	require.Equal(t, 200, status)
	f.clock.Advance(29 * time.Second)
	assert.Equal(t, "running", a.match(id).Status)
	b.poll()
	f.clock.Advance(time.Second)
	m := a.match(id)
	assert.Equal(t, "aborted", m.Status)
	assert.Equal(t, "aborted", m.State.Status)
	assert.Equal(t, "no_first_move", *m.State.FinishReason)
	assert.Nil(t, m.State.Winner)
	for _, l := range m.State.Legs {
		assert.Equal(t, "stopped", l.Status)
	}
}

// TestDisconnectLoss: a bot silent for more than 30 s past its grace while
// the other stays connected loses by disconnect.
func TestDisconnectLoss(t *testing.T) {
	f := newFixture(t, Config{PollGrace: 5 * time.Second})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	id := runningPair(t, f, a, b, "std")
	// Both make a first move (each leg's black), so no abort.
	for li, l := range a.match(id).State.Legs {
		c := a
		if l.BlackParticipant == 1 {
			c = b
		}
		status, ans := c.call(map[string]any{"action": "agent_move", "match_id": id, "leg": li, "revision": l.Revision, "move": l.LegalMoves[0]})
		require.Equal(t, 200, status, "%v", ans)
	}
	// beta goes silent; alpha keeps polling.
	for i := 0; i < 35; i++ {
		f.clock.Advance(time.Second)
		a.poll()
	}
	assert.Equal(t, "running", a.match(id).Status, "5 s grace + 30 s not yet over")
	f.clock.Advance(time.Second)
	m := a.match(id)
	require.Equal(t, "finished", m.Status)
	assert.Equal(t, "disconnect", *m.State.FinishReason)
	require.NotNil(t, m.State.Winner)
	assert.Equal(t, 0, *m.State.Winner)
}

// TestHumanRoomFields: agent_move in a human match needs round_no and
// room_created_at as the match object gave them.
func TestHumanRoomFields(t *testing.T) {
	f := newFixture(t, Config{})
	a := f.client(t, "ta")
	a.poll()
	id, err := f.srv.CreateHuman(HumanOptions{Bot: "alpha", Mode: othello.Std, BotBlack: true})
	require.NoError(t, err)
	status, ans := a.call(map[string]any{"action": "agent_accept", "match_id": id})
	require.Equal(t, 200, status, "%v", ans)
	m := a.match(id)
	require.Equal(t, "human", m.Kind)
	require.NotNil(t, m.RoundNo)
	l := m.State.Legs[0]
	base := map[string]any{"action": "agent_move", "match_id": id, "leg": 0, "revision": l.Revision, "move": l.LegalMoves[0]}
	status, ans = a.call(base)
	assert.Equal(t, 409, status)
	assert.Equal(t, "stale room revision", ans["error"])
	base["round_no"] = *m.RoundNo + 1
	base["room_created_at"] = *m.RoomCreatedAt
	status, ans = a.call(base)
	assert.Equal(t, 409, status)
	assert.Equal(t, "stale room revision", ans["error"])
	base["round_no"] = *m.RoundNo
	status, ans = a.call(base)
	require.Equal(t, 200, status, "%v", ans)
	waitIdle(t, f.srv)
}

// TestRandomStarts: 12 discs, the same start in both legs, black to move,
// placed as the spec's examples count them.
func TestRandomStarts(t *testing.T) {
	f := newFixture(t, Config{})
	for _, mode := range othello.AllModes() {
		for i := 0; i < 20; i++ {
			f.srv.mu.Lock()
			pos, moves := othello.RandomOpening(mode, f.srv.rng)
			f.srv.mu.Unlock()
			b, w := pos.Count()
			if mode == othello.Reversi {
				assert.Len(t, moves, 12)
				assert.Equal(t, 12, pos.Placed.Black+pos.Placed.White)
				for _, c := range []int{27, 28, 35, 36} {
					assert.NotEqual(t, othello.Empty, pos.At(c), "centre four filled")
				}
			} else {
				assert.Len(t, moves, 8)
				assert.Equal(t, 8, pos.Placed.Black+pos.Placed.White)
			}
			assert.Equal(t, 12, b+w, "%s start has 12 discs", mode)
			assert.NotEmpty(t, pos.LegalMoves())
			assert.Equal(t, othello.Black, pos.Turn)
		}
	}
}

// TestPruneKeepsMemoryBounded: ended matches are forgotten after
// KeepFinished, and beyond MaxFinished.
func TestPruneKeepsMemoryBounded(t *testing.T) {
	f := newFixture(t, Config{MaxFinished: 5, KeepFinished: time.Minute})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	a.poll()
	b.poll()
	for i := 0; i < 12; i++ {
		_, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2})
		_, _ = b.call(map[string]any{"action": "agent_reject", "match_id": ans["match_id"]})
		f.srv.Tick()
	}
	f.srv.mu.Lock()
	n := len(f.srv.matches)
	f.srv.mu.Unlock()
	assert.LessOrEqual(t, n, 5)
	f.clock.Advance(2 * time.Minute)
	f.srv.Tick()
	f.srv.mu.Lock()
	n = len(f.srv.matches)
	f.srv.mu.Unlock()
	assert.Equal(t, 0, n)
}
