package arena

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/flipsight"
)

// get returns a page's status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// playedOut plays a std pair between alpha and beta to its end, 300 ms a
// move, and returns its id.
func playedOut(t *testing.T, f *fixture) int64 { return playedOutB(t, f) }

func playedOutB(t testing.TB, f *fixture) int64 {
	t.Helper()
	a, b := f.client(t, "ta"), f.client(t, "tb")
	id := runningPair(t, f, a, b, "std")
	for range 400 {
		r, ok := f.srv.Result(id)
		require.True(t, ok)
		if r.Ended {
			return id
		}
		f.clock.Advance(300 * time.Millisecond)
		a.step()
		b.step()
	}
	t.Fatal("the match did not end")
	return 0
}

// TestFinishedMatchStaysWithReplay: a finished match stays in the page's
// results after the API has forgotten it, linked to its replay: the board
// with coordinates and the last move marked, the move list numbered by
// plies, both clocks, each leg, any position.
func TestFinishedMatchStaysWithReplay(t *testing.T) {
	f := newFixture(t, Config{})
	id := playedOut(t, f)
	r, _ := f.srv.Result(id)
	require.Equal(t, flipsight.MatchFinished, r.Status)
	f.clock.Advance(DefaultKeepFinished + time.Minute)
	f.srv.Tick()
	_, known := f.srv.Result(id)
	require.False(t, known, "the API forgets it KeepFinished after")

	_, page := get(t, f.ts.URL+"/")
	link := fmt.Sprintf(`href="/arena/matches/%d"`, id)
	assert.Contains(t, page, link, "the result links its replay")
	snap := f.srv.Snapshot()
	require.Len(t, snap.Recent, 1)
	assert.Equal(t, fmt.Sprintf("/arena/matches/%d", id), snap.Recent[0].Replay)
	assert.Equal(t, r.Totals, snap.Recent[0].Totals)

	status, end := get(t, fmt.Sprintf("%s/arena/matches/%d", f.ts.URL, id))
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, end, `<svg id="board" class="board-svg s8"`)
	assert.Equal(t, 16, strings.Count(end, `<text class="coord"`), "a…h and 1…8")
	assert.Regexp(t, `<circle class="m-last" cx="\d+" cy="\d+" r="6"/>`, end, "the last move marked")
	assert.Contains(t, end, "leg 0: ● ")
	assert.Contains(t, end, "leg 1: ● ")
	// The move list: plies 1, 2, 3, … each a link to its position.
	plies := regexp.MustCompile(`data-ply="(\d+)"><small>(\d+)\.</small> ([a-h][1-8]|pass)</a>`).FindAllStringSubmatch(end, -1)
	require.Greater(t, len(plies), 20)
	for i, m := range plies {
		assert.Equal(t, fmt.Sprint(i+1), m[1])
		assert.Equal(t, m[1], m[2])
	}
	assert.Regexp(t, `<span class="clock">\d:\d\d\.\d</span>`, end)

	status, start := get(t, fmt.Sprintf("%s/arena/matches/%d?leg=1&ply=0", f.ts.URL, id))
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, start, "<b>Start</b>")
	assert.Contains(t, start, `<span class="clock">1:00.0</span>`, "the full clocks at the start")
	assert.Contains(t, start, `<circle class="m-last" cx="42" cy="42" r="6" visibility="hidden"/>`)
	_, third := get(t, fmt.Sprintf("%s/arena/matches/%d?leg=1&ply=3", f.ts.URL, id))
	assert.Regexp(t, `<b>3\. [a-h][1-8]</b>`, third, "the move that led there, by its ply")
	assert.Contains(t, third, `class="cur"><small>3.</small>`)

	for _, bad := range []string{"999", "x", "-5"} {
		status, _ := get(t, f.ts.URL+"/arena/matches/"+bad)
		assert.Equal(t, http.StatusNotFound, status, bad)
	}
}

// TestResultsBounded: the page keeps the last KeptResults ended matches.
func TestResultsBounded(t *testing.T) {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	a.poll()
	b.poll()
	for range KeptResults + 5 {
		_, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2, "game_mode": "std"})
		status, ans := b.call(map[string]any{"action": "agent_reject", "match_id": ans["match_id"]})
		require.Equal(t, http.StatusOK, status, "%v", ans)
	}
	snap := f.srv.Snapshot()
	require.Len(t, snap.Recent, KeptResults)
	assert.Equal(t, int64(KeptResults+5), snap.Recent[0].ID, "newest first")
	assert.Equal(t, int64(6), snap.Recent[KeptResults-1].ID)
	assert.Empty(t, snap.Recent[0].Replay, "a rejected challenge has nothing to replay")
}

// TestClockShort: a clock is red only under ShortClock, not merely for
// running.
func TestClockShort(t *testing.T) {
	assert.Equal(t, int64(10_000), ShortClock(60_000))
	assert.Equal(t, int64(5_000), ShortClock(30_000))
	assert.Equal(t, int64(10_000), ShortClock(600_000))
	f := newFixture(t, Config{NoFirstMoveAbort: true})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	runningPair(t, f, a, b, "std")
	f.clock.Advance(40 * time.Second) // black has 20 s left in both legs
	snap := f.srv.Snapshot()
	require.Len(t, snap.Live, 1)
	for _, l := range snap.Live[0].Legs {
		assert.Equal(t, "0:20.0", l.ClockB)
		assert.Equal(t, [2]bool{false, false}, l.Short, "20 s left is not short")
	}
	_, page := get(t, f.ts.URL+"/")
	assert.NotContains(t, page, "short\">")
	assert.Contains(t, page, `<span class="clock run">0:20.0</span>`)
	f.clock.Advance(10500 * time.Millisecond)
	for _, l := range f.srv.Snapshot().Live[0].Legs {
		assert.Equal(t, [2]bool{true, false}, l.Short, "9.5 s left is")
	}
	_, page = get(t, f.ts.URL+"/")
	assert.Contains(t, page, `<span class="clock run short">0:09.5</span>`)
}

// TestPageExplainsLevels: the page says what a built-in bot's level plays.
func TestPageExplainsLevels(t *testing.T) {
	f := newFixture(t, Config{})
	_, page := get(t, f.ts.URL+"/")
	assert.Contains(t, page, "--builtin NAME[:LEVEL[:MODES]]")
	for _, l := range Levels() {
		assert.Contains(t, page, "<dt>"+l.Level+"</dt><dd>"+l.Plays+"</dd>")
	}
	assert.Contains(t, page, "house:4 is a bot named house searching 4 moves ahead")
	assert.Contains(t, page, "less than 10 s left")
}

// TestHumanRoomRoundsReplayed: each round of a human room is a result of
// its own (?round=R), replayed from the rules' start with the XOT moves.
func TestHumanRoomRoundsReplayed(t *testing.T) {
	f := newFixture(t, Config{})
	a := f.client(t, "ta")
	a.poll()
	id, err := f.srv.CreateHuman(HumanOptions{Bot: "alpha", Rounds: 2, XOT: true})
	require.NoError(t, err)
	for range 400 {
		if r, _ := f.srv.Result(id); r.Ended {
			break
		}
		f.clock.Advance(300 * time.Millisecond)
		f.srv.Tick()
		a.step()
	}
	r, _ := f.srv.Result(id)
	require.True(t, r.Ended)
	recent := f.srv.Snapshot().Recent
	require.Len(t, recent, 2)
	assert.Equal(t, ReplayPath(id)+"?round=2", recent[0].Replay)
	assert.Equal(t, ReplayPath(id)+"?round=1", recent[1].Replay)
	for _, round := range []string{"1", "2"} {
		status, page := get(t, f.ts.URL+ReplayPath(id)+"?round="+round+"&ply=0")
		require.Equal(t, http.StatusOK, status)
		assert.Contains(t, page, "round "+round)
		assert.Contains(t, page, "discs 2–2", "round %s starts from the rules' start", round)
		assert.Contains(t, page, `data-ply="8"><small>8.</small>`, "the XOT moves are plies 1–8")
	}
	status, _ := get(t, f.ts.URL+ReplayPath(id)+"?round=3")
	assert.Equal(t, http.StatusNotFound, status)
}

// FuzzReplayQuery: any path and query of a replay answer 200 or 404,
// never a panic.
func FuzzReplayQuery(f *testing.F) {
	fx := newFixture(f, Config{})
	id := playedOutB(f, fx)
	h := fx.srv.Handler()
	for _, s := range []string{"leg=1&ply=3", "ply=-1", "leg=9&ply=99999999999999999999", "round=x", "ply=%00", "leg=-3"} {
		f.Add(fmt.Sprint(id), s)
	}
	f.Fuzz(func(t *testing.T, path, query string) {
		req, err := http.NewRequest(http.MethodGet, "/arena/matches/x", nil)
		require.NoError(t, err)
		req.URL.Path = "/arena/matches/" + path
		req.URL.RawQuery = query
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		assert.Contains(t, []int{http.StatusOK, http.StatusNotFound, http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusBadRequest}, w.Code, "the mux redirects unclean paths")
	})
}
