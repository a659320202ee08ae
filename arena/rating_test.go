package arena

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena/glicko"
)

// specRating is agent_poll's bot.rating, as the spec shows it.
type specRating struct {
	Rating           float64 `json:"rating"`
	RD               float64 `json:"rd"`
	Official         bool    `json:"official"`
	HighRating       float64 `json:"high_rating"`
	Wins             int     `json:"wins"`
	Losses           int     `json:"losses"`
	Draws            int     `json:"draws"`
	Streak           int     `json:"streak"`
	BestStreak       int     `json:"best_streak"`
	OfficialProgress struct {
		Current  int `json:"current"`
		Required int `json:"required"`
	} `json:"official_progress"`
}

// ratings polls as c and returns every bot's rating by name, the
// caller's own (bot.rating) and the match id's rating fields.
func ratings(t *testing.T, c *specClient, id int64) (map[string]specRating, specRating, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"action": "agent_poll"})
	status, raw := c.raw(b)
	require.Equal(t, http.StatusOK, status)
	var p struct {
		Bots []struct {
			Name   string     `json:"name"`
			Rating specRating `json:"rating"`
		} `json:"bots"`
		Bot struct {
			Rating specRating `json:"rating"`
		} `json:"bot"`
		Matches []map[string]any `json:"matches"`
	}
	require.NoError(t, json.Unmarshal(raw, &p))
	out := map[string]specRating{}
	for _, b := range p.Bots {
		out[b.Name] = b.Rating
	}
	var m map[string]any
	for _, x := range p.Matches {
		if int64(x["id"].(float64)) == id {
			m = x
		}
	}
	return out, p.Bot.Rating, m
}

// TestRatingsAfterMatch: a finished, ranked bot-vs-bot match is one
// Glicko-2 game for each bot (scored by the match's winner), so
// agent_poll reports new ratings, RDs and counts for both, and the match
// its ratings before and after; an aborted match and a practice match
// leave everything at FlipSight's 1200 ± 300.
func TestRatingsAfterMatch(t *testing.T) {
	fresh := glicko.Player{Rating: InitialRating, RD: InitialRD, Volatility: InitialVolatility}
	tests := []struct {
		name  string
		cfg   Config
		play  func(t *testing.T, f *fixture, a, b *specClient, id int64)
		rated bool
	}{
		{"played to the end", Config{}, playOut, true},
		{"lost by disconnect", Config{PollGrace: 5 * time.Second}, func(t *testing.T, f *fixture, a, b *specClient, id int64) {
			firstMoves(t, a, b, id)
			for range 37 { // beta goes silent; alpha keeps polling
				f.clock.Advance(time.Second)
				a.poll()
			}
		}, true},
		{"aborted: no first move", Config{}, func(t *testing.T, f *fixture, a, b *specClient, id int64) {
			f.clock.Advance(31 * time.Second)
			a.poll()
			b.poll()
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.cfg)
			a, b := f.client(t, "ta"), f.client(t, "tb")
			id := runningPair(t, f, a, b, "std")
			tc.play(t, f, a, b, id)
			m := a.match(id)
			bots, mine, wm := ratings(t, a, id)
			ra, rb := bots["alpha"], bots["beta"]
			assert.Equal(t, ra, mine, "bot.rating is the caller's entry of bots[]")
			if !tc.rated {
				assert.Equal(t, "aborted", m.Status)
				for _, r := range []specRating{ra, rb} {
					assert.Equal(t, float64(InitialRating), r.Rating)
					assert.Equal(t, float64(InitialRD), r.RD)
					assert.Zero(t, r.Wins+r.Losses+r.Draws)
				}
				assert.NotEqual(t, true, wm["rating_applied"])
				assert.Equal(t, []any{nil, nil}, wm["rating_after"])
				return
			}
			require.Equal(t, "finished", m.Status)
			scoreA := glicko.Draw
			if w := m.State.Winner; w != nil {
				scoreA = [2]float64{glicko.Win, glicko.Loss}[*w]
			}
			wantA, err := glicko.Update(fresh, []glicko.Result{{Opponent: fresh, Score: scoreA}}, glicko.DefaultTau)
			require.NoError(t, err)
			wantB, err := glicko.Update(fresh, []glicko.Result{{Opponent: fresh, Score: 1 - scoreA}}, glicko.DefaultTau)
			require.NoError(t, err)
			assert.InDelta(t, wantA.Rating, ra.Rating, 1e-9)
			assert.InDelta(t, wantB.Rating, rb.Rating, 1e-9)
			assert.InDelta(t, wantA.RD, ra.RD, 1e-9)
			assert.Less(t, ra.RD, float64(InitialRD))
			assert.Less(t, rb.RD, float64(InitialRD))
			if scoreA != glicko.Draw {
				assert.NotEqual(t, float64(InitialRating), ra.Rating)
			}
			assert.Equal(t, max(InitialRating, ra.Rating), ra.HighRating)
			counts := func(r specRating) [3]int { return [3]int{r.Wins, r.Draws, r.Losses} }
			switch scoreA {
			case glicko.Win:
				assert.Equal(t, [3]int{1, 0, 0}, counts(ra))
				assert.Equal(t, [3]int{0, 0, 1}, counts(rb))
				assert.Equal(t, 1, ra.Streak)
				assert.Equal(t, -1, rb.Streak)
			case glicko.Loss:
				assert.Equal(t, [3]int{0, 0, 1}, counts(ra))
				assert.Equal(t, [3]int{1, 0, 0}, counts(rb))
			default:
				assert.Equal(t, [3]int{0, 1, 0}, counts(ra))
				assert.Equal(t, [3]int{0, 1, 0}, counts(rb))
			}
			assert.Equal(t, 1, ra.OfficialProgress.Current)
			assert.Equal(t, OfficialAfter, ra.OfficialProgress.Required)
			assert.False(t, ra.Official)
			assert.Equal(t, true, wm["rating_applied"])
			assert.Equal(t, []any{float64(InitialRating), float64(InitialRating)}, wm["rating_before"])
			assert.Equal(t, []any{ra.Rating, rb.Rating}, wm["rating_after"])

			// The arena's page shows them.
			snap := f.srv.Snapshot()
			require.Len(t, snap.Bots, 2)
			assert.Equal(t, ra.Rating, snap.Bots[0].Rating)
			assert.Equal(t, rb.RD, snap.Bots[1].RD)
			assert.Equal(t, ra.Wins, snap.Bots[0].Wins)
			resp, err := http.Get(f.ts.URL + "/")
			require.NoError(t, err)
			page, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			assert.Contains(t, string(page), fmt.Sprintf("%.0f ± %.0f", ra.Rating, ra.RD))
			assert.Contains(t, string(page), fmt.Sprintf("<td>%d–%d–%d</td>", rb.Wins, rb.Draws, rb.Losses))
		})
	}
}

// TestPracticeMatchUnrated: a match of a bot in practice is not ranked,
// so a finished one changes no rating.
func TestPracticeMatchUnrated(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	status, _ := b.call(map[string]any{"action": "agent_poll", "environment": map[string]any{"practice": true}})
	require.Equal(t, http.StatusOK, status)
	status, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2, "game_mode": "std"})
	require.Equal(t, http.StatusOK, status, "%v", ans)
	id := int64(ans["match_id"].(float64))
	status, ans = b.call(map[string]any{"action": "agent_accept", "match_id": id})
	require.Equal(t, http.StatusOK, status, "%v", ans)
	// The match is unranked from its challenge on, whatever beta sends
	// later (its polls while playing say practice false).
	playOut(t, f, a, b, id)
	require.Equal(t, "finished", a.match(id).Status)
	bots, _, wm := ratings(t, a, id)
	assert.Equal(t, float64(InitialRating), bots["alpha"].Rating)
	assert.Equal(t, float64(InitialRD), bots["beta"].RD)
	assert.Zero(t, bots["alpha"].Wins+bots["alpha"].Losses+bots["alpha"].Draws)
	assert.NotEqual(t, true, wm["ranked"])
	assert.NotEqual(t, true, wm["rating_applied"])
}

// TestRatingsAccumulate: several matches in a row move the ratings
// further and shrink the RDs each time; the counts add up.
func TestRatingsAccumulate(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	prevRD := float64(InitialRD)
	for i := 1; i <= 3; i++ {
		id := runningPair(t, f, a, b, "std")
		playOut(t, f, a, b, id)
		bots, _, _ := ratings(t, a, id)
		ra := bots["alpha"]
		assert.Equal(t, i, ra.Wins+ra.Draws+ra.Losses)
		assert.Less(t, ra.RD, prevRD, "match %d", i)
		prevRD = ra.RD
	}
}

// playOut plays match id to its end with both clients' first-legal-move
// players.
func playOut(t *testing.T, f *fixture, a, b *specClient, id int64) {
	t.Helper()
	for range 400 {
		f.clock.Advance(100 * time.Millisecond)
		busyA := a.step()
		busyB := b.step()
		if !busyA && !busyB {
			return
		}
	}
	t.Fatalf("match %d did not end", id)
}

// firstMoves makes each bot's first move in the leg where it is black.
func firstMoves(t *testing.T, a, b *specClient, id int64) {
	t.Helper()
	for li, l := range a.match(id).State.Legs {
		c := a
		if l.BlackParticipant == 1 {
			c = b
		}
		status, ans := c.call(map[string]any{"action": "agent_move", "match_id": id, "leg": li, "revision": l.Revision, "move": l.LegalMoves[0]})
		require.Equal(t, http.StatusOK, status, "%v", ans)
	}
}

// TestBotRatingRecord: the counts, the signed streak, the best streak,
// the high rating and the official mark after OfficialAfter matches.
func TestBotRatingRecord(t *testing.T) {
	r := newBotRating()
	p := r.Player
	for _, s := range []float64{glicko.Win, glicko.Win, glicko.Draw, glicko.Loss, glicko.Loss, glicko.Win} {
		p.Rating += 10 * (s - 0.5)
		r.record(s, p)
	}
	w := r.wire()
	assert.Equal(t, [3]int{3, 1, 2}, [3]int{w.Wins, w.Draws, w.Losses})
	assert.Equal(t, 1, w.Streak)
	assert.Equal(t, 2, w.BestStreak)
	assert.Equal(t, float64(InitialRating+10), w.HighRating)
	assert.False(t, w.Official)
	assert.Equal(t, "pz-rating-unofficial", w.Color)
	assert.Equal(t, 6, w.OfficialProgress.Current)
	r.record(glicko.Loss, p)
	assert.Equal(t, -1, r.wire().Streak)
	for r.games() < OfficialAfter {
		r.record(glicko.Draw, p)
	}
	w = r.wire()
	assert.True(t, w.Official)
	assert.Empty(t, w.Color)
	assert.Equal(t, OfficialAfter, w.OfficialProgress.Current)
}
