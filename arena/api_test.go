package arena

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestTransportErrors: the spec's 400/401/405/413 answers.
func TestTransportErrors(t *testing.T) {
	f := newFixture(t, Config{})
	url := f.ts.URL + APIPath
	cases := []struct {
		name, method, token, body string
		status                    int
		err                       string
	}{
		{"GET is 405 POST required", http.MethodGet, "ta", "", 405, "POST required"},
		{"PUT is 405 POST required", http.MethodPut, "ta", `{"action":"agent_poll"}`, 405, "POST required"},
		{"no token is 401", http.MethodPost, "", `{"action":"agent_poll"}`, 401, "invalid bot credential"},
		{"wrong token is 401", http.MethodPost, "nope", `{"action":"agent_poll"}`, 401, "invalid bot credential"},
		{"body over 64 KiB is 413", http.MethodPost, "ta", `{"action":"agent_poll","x":"` + strings.Repeat("a", 70<<10) + `"}`, 413, "request too large"},
		{"empty body is 400", http.MethodPost, "ta", ``, 400, "JSON object required"},
		{"array is 400", http.MethodPost, "ta", `[1,2]`, 400, "JSON object required"},
		{"broken JSON is 400", http.MethodPost, "ta", `{"action":`, 400, "JSON object required"},
		{"wrong field type is 400", http.MethodPost, "ta", `{"action":"agent_move","match_id":"x"}`, 400, "JSON object required"},
		{"trailing garbage is 400", http.MethodPost, "ta", `{"action":"agent_poll"} {}`, 400, "JSON object required"},
		{"unknown action is 400", http.MethodPost, "ta", `{"action":"agent_dance"}`, 400, "unknown action"},
		{"missing action is 400", http.MethodPost, "ta", `{}`, 400, "unknown action"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(c.method, url, bytes.NewBufferString(c.body))
			require.NoError(t, err)
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var ans struct {
				OK          bool   `json:"ok"`
				Error       string `json:"error"`
				ServerNowMS int64  `json:"server_now_ms"`
			}
			require.NoError(t, decodeJSON(resp.Body, &ans))
			assert.Equal(t, c.status, resp.StatusCode)
			assert.False(t, ans.OK)
			assert.Equal(t, c.err, ans.Error)
			assert.Equal(t, t0.UnixMilli(), ans.ServerNowMS)
		})
	}
}

// runningPair starts a std match alpha (participant 0) vs beta and returns
// its id after both polled.
func runningPair(t testing.TB, f *fixture, a, b *specClient, mode string) int64 {
	t.Helper()
	a.poll()
	b.poll()
	status, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2, "game_mode": mode})
	require.Equal(t, 200, status, "%v", ans)
	id := int64(ans["match_id"].(float64))
	status, ans = b.call(map[string]any{"action": "agent_accept", "match_id": id})
	require.Equal(t, 200, status, "%v", ans)
	assert.Equal(t, map[string]any{"id": float64(id), "status": "running", "bot_a": float64(1), "bot_b": float64(2)}, ans["match"])
	return id
}

// TestMoveErrors: the 409s of agent_move, and that a refused move leaves
// the board unchanged.
func TestMoveErrors(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	id := runningPair(t, f, a, b, "std")
	m := a.match(id)
	l0 := m.State.Legs[0]
	require.Equal(t, 1, l0.Turn, "black to move after 8 random moves")
	illegal := -1
	for sq := 0; sq < 64; sq++ {
		if l0.Board[sq] == 0 && !contains(l0.LegalMoves, sq) {
			illegal = sq
			break
		}
	}
	occupied := 0
	for sq := 0; sq < 64; sq++ {
		if l0.Board[sq] != 0 {
			occupied = sq
			break
		}
	}
	mv := func(match int64, leg int, rev int64, move any) map[string]any {
		return map[string]any{"action": "agent_move", "match_id": match, "leg": leg, "revision": rev, "move": move}
	}
	cases := []struct {
		name   string
		c      *specClient
		body   map[string]any
		status int
		err    string
	}{
		{"stale revision", a, mv(id, 0, 5, l0.LegalMoves[0]), 409, "stale_revision"},
		{"not your turn (white in leg 0)", b, mv(id, 0, 0, l0.LegalMoves[0]), 409, "not_your_turn"},
		{"illegal move", a, mv(id, 0, 0, illegal), 409, "illegal_move"},
		{"occupied square", a, mv(id, 0, 0, occupied), 409, "illegal_move"},
		{"pass with legal moves", a, mv(id, 0, 0, -1), 409, "illegal_move"},
		{"pass token with legal moves", a, mv(id, 0, 0, "PS"), 409, "illegal_move"},
		{"outside the board", a, mv(id, 0, 0, 64), 409, "move outside board"},
		{"below -1", a, mv(id, 0, 0, -2), 409, "move outside board"},
		{"bad coordinate", a, mv(id, 0, 0, "z9"), 409, "invalid move coordinate"},
		{"10x10 coordinate on 8x8", a, mv(id, 0, 0, "j10"), 409, "invalid move coordinate"},
		{"fractional move", a, mv(id, 0, 0, 19.5), 409, "invalid move coordinate"},
		{"boolean move", a, mv(id, 0, 0, true), 409, "invalid move coordinate"},
		{"no move", a, map[string]any{"action": "agent_move", "match_id": id, "leg": 0, "revision": 0}, 409, "invalid move coordinate"},
		{"unknown match", a, mv(999, 0, 0, 19), 409, "match not running"},
		{"match id 0", a, mv(0, 0, 0, 19), 409, "match not running"},
		{"leg 2", a, mv(id, 2, 0, 19), 409, "leg_finished"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, ans := c.c.call(c.body)
			assert.Equal(t, c.status, status)
			assert.Equal(t, c.err, ans["error"])
			assert.Equal(t, false, ans["ok"])
		})
	}
	after := a.match(id).State.Legs[0]
	assert.Equal(t, l0.Board, after.Board, "refused moves leave the board")
	assert.Equal(t, l0.Revision, after.Revision)

	// A legal move as a coordinate string in upper case.
	sq := l0.LegalMoves[0]
	status, ans := a.call(mv(id, 0, 0, strings.ToUpper(othello.SquareName(sq, 8))))
	require.Equal(t, 200, status, "%v", ans)
	l := a.match(id).State.Legs[0]
	assert.Equal(t, int64(1), l.Revision)
	assert.Equal(t, 2, l.Turn)
	status, ans = a.call(mv(id, 0, 1, sq))
	assert.Equal(t, 409, status)
	assert.Equal(t, "not_your_turn", ans["error"])
}

// TestChallengeErrors: the 409s of agent_challenge, accept and reject.
func TestChallengeErrors(t *testing.T) {
	f := newFixture(t, Config{Bots: []BotConfig{
		{Name: "stdonly", Token: "ts"},
		{Name: "ghost", Token: "tg"},
		{Name: "house", Builtin: true, Level: 1, Modes: othello.AllModes()},
	}})
	a, b, s := f.client(t, "ta"), f.client(t, "tb"), f.client(t, "ts")
	a.poll()
	b.poll()
	s.poll()
	ch := func(c *specClient, target any, mode string) (int, map[string]any) {
		body := map[string]any{"action": "agent_challenge", "game_mode": mode}
		switch v := target.(type) {
		case int:
			body["target_id"] = v
		case string:
			body["target_name"] = v
		}
		return c.call(body)
	}
	status, ans := ch(a, "stdonly", "anti")
	assert.Equal(t, 409, status)
	assert.Equal(t, "unsupported game mode", ans["error"])
	status, ans = ch(a, "beta", "chess")
	assert.Equal(t, 409, status)
	assert.Equal(t, "unsupported game mode", ans["error"])
	status, ans = ch(a, "nobody", "std")
	assert.Equal(t, 409, status)
	assert.Equal(t, "target bot not found", ans["error"])
	status, ans = ch(a, 1, "std")
	assert.Equal(t, 409, status)
	assert.Equal(t, "target bot not found", ans["error"], "not oneself")
	status, ans = ch(a, "ghost", "std")
	assert.Equal(t, 409, status)
	assert.Equal(t, "both bots must be connected", ans["error"])

	// A challenge to beta; alpha cannot accept its own; beta rejects; then
	// accepting again is "challenge expired or answered".
	status, ans = ch(a, "beta", "")
	require.Equal(t, 200, status)
	id := ans["match_id"].(float64)
	status, _ = a.call(map[string]any{"action": "agent_accept", "match_id": id})
	assert.Equal(t, 403, status)
	status, ans = b.call(map[string]any{"action": "agent_reject", "match_id": id})
	require.Equal(t, 200, status)
	assert.Equal(t, "rejected", ans["match"].(map[string]any)["status"])
	status, ans = b.call(map[string]any{"action": "agent_accept", "match_id": id})
	assert.Equal(t, 409, status)
	assert.Equal(t, "challenge expired or answered", ans["error"])
	assert.Equal(t, "rejected", b.match(int64(id)).Status)

	// Pending challenges expire after 120 s.
	_, ans = ch(a, "beta", "std")
	id = ans["match_id"].(float64)
	f.clock.Advance(119 * time.Second)
	a.poll()
	b.poll()
	assert.Equal(t, "pending", b.match(int64(id)).Status)
	f.clock.Advance(time.Second)
	status, ans = b.call(map[string]any{"action": "agent_accept", "match_id": id})
	assert.Equal(t, 409, status)
	assert.Equal(t, "challenge expired or answered", ans["error"])
	assert.Equal(t, "expired", b.match(int64(id)).Status)

	// Built-in bots start at once; two variant matches with them fill the site.
	for i := 0; i < 2; i++ {
		status, ans = ch(a, "house", "grand")
		require.Equal(t, 200, status, "%v", ans)
		assert.Equal(t, "running", a.match(int64(ans["match_id"].(float64))).Status)
	}
	status, ans = ch(b, "house", "anti")
	assert.Equal(t, 409, status)
	assert.Equal(t, "site bot variant matches are full", ans["error"])
	// alpha now runs 2 matches (its limit).
	status, ans = ch(a, "beta", "std")
	assert.Equal(t, 409, status)
	assert.Equal(t, "bot already has an active match", ans["error"])
	status, ans = ch(b, "alpha", "std")
	assert.Equal(t, 409, status)
	assert.Equal(t, "bot busy", ans["error"])
	waitIdle(t, f.srv)
}

// TestPollShape: agent_poll answers the spec's fields.
func TestPollShape(t *testing.T) {
	f := newFixture(t, Config{Bots: []BotConfig{{Name: "house", Builtin: true, Level: 0, Modes: othello.AllModes()}}})
	a := f.client(t, "ta")
	status, ans := a.call(map[string]any{"action": "agent_poll", "environment": map[string]any{"cpu": strings.Repeat("c", 300), "engine": "E", "practice": true}})
	require.Equal(t, 200, status)
	for _, k := range []string{"ok", "bots", "record_bots", "matches", "me", "bot", "server_now_ms"} {
		assert.Contains(t, ans, k)
	}
	me := ans["bot"].(map[string]any)
	assert.Equal(t, "alpha", me["name"])
	assert.Equal(t, true, me["online"], "a poll keeps a stream-less bot online for a while")
	env := me["environment"].(map[string]any)
	assert.Len(t, env["cpu"], 120)
	assert.Equal(t, true, env["practice"])
	bots := ans["bots"].([]any)
	require.Len(t, bots, 3)
	house := bots[2].(map[string]any)
	assert.Equal(t, true, house["is_builtin"])
	assert.Equal(t, true, house["online"])
	assert.Equal(t, float64(0), house["engine_level"])
	assert.Equal(t, false, bots[1].(map[string]any)["online"], "beta never connected")
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestPendingChallengesBounded: a bot cannot pile up unanswered challenges.
func TestPendingChallengesBounded(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	a.poll()
	b.poll()
	for i := 0; i < maxPendingChallenges; i++ {
		status, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2})
		require.Equal(t, 200, status, "%v", ans)
	}
	status, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2})
	assert.Equal(t, 409, status)
	assert.Equal(t, "bot busy", ans["error"])
}
