package bot

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// hostileServer answers agent_poll with many matches the bot never
// accepted: running ones where the bot is to move, and pending ones in a
// mode the bot does not play. agent_move is refused (409), agent_reject
// waits before answering, so that rejects pile up if the bot lets them.
type hostileServer struct {
	running, pending int

	rejects, rejectsMax, rejectsNow atomic.Int32
}

func (h *hostileServer) match(id int64, status string, mode string) flipsight.Match {
	pos := othello.New(othello.Std)
	board := make([]int, 64)
	for sq := range 64 {
		switch {
		case pos.Black.Has(sq):
			board[sq] = flipsight.Black
		case pos.White.Has(sq):
			board[sq] = flipsight.White
		}
	}
	m := flipsight.Match{ID: id, BotA: 2, BotB: 1, GameMode: mode, Status: status, TimeLimitSec: 60}
	if status == flipsight.MatchRunning {
		leg := func(black int) flipsight.Leg {
			return flipsight.Leg{Board: board, Turn: flipsight.Black, BlackParticipant: black, Placed: flipsight.Placed{Black: 2, White: 2},
				ClocksMS: []float64{60000, 60000}, TurnStartedMS: 1_800_000_000_000, Status: flipsight.LegActive,
				History: []flipsight.HistoryEntry{}, Discs: []int{2, 2}, LegalMoves: pos.LegalMoves()}
		}
		m.State = &flipsight.MatchState{Status: status, GameMode: mode, BoardSize: 8, BlockedSquares: []int{},
			Legs: []flipsight.Leg{leg(1), leg(0)}, Totals: []int{4, 4}}
	}
	return m
}

func (h *hostileServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Action string `json:"action"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	w.Header().Set("Content-Type", "application/json")
	now := int64(1_800_000_000_000)
	switch req.Action {
	case flipsight.ActionPoll:
		resp := flipsight.PollResponse{OK: true, Bot: &flipsight.Bot{ID: 1, Name: "me"}, ServerNowMS: now,
			Bots: []flipsight.Bot{}, RecordBots: []flipsight.Bot{}}
		for i := range h.running {
			resp.Matches = append(resp.Matches, h.match(int64(1000+i), flipsight.MatchRunning, "std"))
		}
		for i := range h.pending {
			resp.Matches = append(resp.Matches, h.match(int64(5000+i), flipsight.MatchPending, "anti"))
		}
		_ = json.NewEncoder(w).Encode(resp)
	case flipsight.ActionReject:
		h.rejects.Add(1)
		n := h.rejectsNow.Add(1)
		for {
			m := h.rejectsMax.Load()
			if n <= m || h.rejectsMax.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(200 * time.Millisecond)
		h.rejectsNow.Add(-1)
		_ = json.NewEncoder(w).Encode(flipsight.MatchResponse{OK: true, ServerNowMS: now})
	default:
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(flipsight.ErrorResponse{Error: string(flipsight.CodeStaleRevision), ServerNowMS: now})
	}
}

// TestAHostileServerCannotMultiplyMatches: a poll answer listing 100 running
// matches the bot never accepted, and 100 pending ones in a mode it does not
// play, leaves the bot with at most MaxMatches plus the allowance of
// matches (and their engines), and at most maxRejects rejects in flight.
func TestAHostileServerCannotMultiplyMatches(t *testing.T) {
	t.Parallel()
	h := &hostileServer{running: 100, pending: 100}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tok, err := flipsight.NewToken(myToken)
	require.NoError(t, err)
	c, err := flipsight.NewClient(flipsight.Config{APIURL: srv.URL + "/api", Token: tok, RequestTimeout: 2 * time.Second})
	require.NoError(t, err)
	var mu sync.Mutex
	made := 0
	eng := &fakeEngine{modes: []othello.Mode{othello.Std}}
	f := Engines{Name: "fake", Modes: eng.modes, Provider: providerOf(PerLeg, func() (engines.Engine, error) {
		mu.Lock()
		defer mu.Unlock()
		made++
		return eng, nil
	})}
	maxSeen := atomic.Int32{}
	b, err := New(Options{Client: c, Engine: f, NoStream: true, MaxMatches: 2, Timing: fastTiming, Logger: testLogger(t),
		OnStatus: func(s Status) {
			if n := int32(len(s.Matches)); n > maxSeen.Load() {
				maxSeen.Store(n)
			}
		}})
	require.NoError(t, err)
	ctx, cancel := contextWithTimeout(3 * time.Second)
	defer cancel()
	_ = b.Run(ctx)
	assert.LessOrEqual(t, int(maxSeen.Load()), 2+runningAllowance, "matches tracked at once")
	mu.Lock()
	assert.LessOrEqual(t, made, 2*(2+runningAllowance), "engines made (two legs a match)")
	mu.Unlock()
	assert.LessOrEqual(t, int(h.rejectsMax.Load()), maxRejects, "rejects in flight at once")
	assert.Positive(t, int(h.rejects.Load()), "the pending matches are rejected, a few at a time")
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
