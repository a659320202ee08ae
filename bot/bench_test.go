package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// benchServer sends one match event at a time on the stream, each a new
// revision of leg 0 with the bot to move, and measures the time from the
// event's flush to the arrival of the agent_move request.
type benchServer struct {
	mu      sync.Mutex
	rev     int64
	sentAt  time.Time
	next    chan struct{}
	samples []time.Duration
	done    chan struct{}
	want    int
}

func (s *benchServer) match(now int64) flipsight.Match {
	pos := othello.New(othello.Std)
	leg := func(black int, rev int64) flipsight.Leg {
		return flipsight.Leg{Board: pos.Board(), Turn: 1, BlackParticipant: black, Placed: flipsight.Placed{Black: 2, White: 2},
			ClocksMS: []float64{60000, 60000}, TurnStartedMS: now, Revision: rev, Status: flipsight.LegActive,
			Discs: []int{2, 2}, LegalMoves: pos.LegalMoves(), History: []flipsight.HistoryEntry{}}
	}
	return flipsight.Match{ID: 7, BotA: 1, BotB: 2, GameMode: "std", Status: flipsight.MatchRunning,
		State: &flipsight.MatchState{GameMode: "std", Status: flipsight.StateActive, BoardSize: 8, BlockedSquares: []int{},
			Legs: []flipsight.Leg{leg(1, s.rev), leg(0, 0)}, Totals: []int{4, 4}}}
}

func (s *benchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now().UnixMilli()
	if r.URL.Path == flipsight.StreamPath {
		w.Header().Set("Content-Type", "application/x-ndjson")
		enc := json.NewEncoder(w)
		enc.Encode(flipsight.Event{Type: flipsight.EventHello, BotID: 2, ServerNowMS: now})
		w.(http.Flusher).Flush()
		for {
			select {
			case <-s.next:
			case <-r.Context().Done():
				return
			}
			s.mu.Lock()
			m := s.match(time.Now().UnixMilli())
			s.mu.Unlock()
			enc.Encode(flipsight.Event{Type: flipsight.EventMatch, Match: &m, ServerNowMS: time.Now().UnixMilli()})
			w.(http.Flusher).Flush()
			s.mu.Lock()
			s.sentAt = time.Now()
			s.mu.Unlock()
		}
	}
	var req struct {
		Action   string `json:"action"`
		Revision int64  `json:"revision"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	switch req.Action {
	case flipsight.ActionPoll:
		s.mu.Lock()
		m := s.match(now)
		s.mu.Unlock()
		json.NewEncoder(w).Encode(flipsight.PollResponse{OK: true, Bot: &flipsight.Bot{ID: 2, Name: "me"},
			Matches: []flipsight.Match{m}, ServerNowMS: now})
		if s.rev == 0 {
			select {
			case s.next <- struct{}{}:
			default:
			}
		}
	case flipsight.ActionMove:
		arrived := time.Now()
		s.mu.Lock()
		if req.Revision == s.rev && !s.sentAt.IsZero() {
			s.samples = append(s.samples, arrived.Sub(s.sentAt))
		}
		s.rev++
		n := len(s.samples)
		s.mu.Unlock()
		json.NewEncoder(w).Encode(flipsight.MatchResponse{OK: true, Match: &flipsight.Match{ID: 7, Status: "running"}, ServerNowMS: now})
		if n >= s.want {
			select {
			case <-s.done:
			default:
				close(s.done)
			}
			return
		}
		s.next <- struct{}{}
	default:
		io.WriteString(w, `{"ok":false,"error":"unknown action"}`)
	}
}

// instantEngine answers the first legal move at once; its time is measured
// so that it can be excluded.
type instantEngine struct{}

func (e *instantEngine) Name() string               { return "instant" }
func (e *instantEngine) Supports(othello.Mode) bool { return true }
func (e *instantEngine) Close() error               { return nil }
func (e *instantEngine) Move(_ context.Context, req engines.Request) (engines.Result, error) {
	start := time.Now()
	mv := req.Position.LegalMoves()[0]
	return engines.Result{Move: mv, Elapsed: time.Since(start)}, nil
}

// BenchmarkEventToMove measures the bot's overhead from a stream event
// (flushed by the server) to the agent_move request reaching the server,
// over loopback HTTP, with an engine that answers at once (its time, under
// a microsecond, is included). It reports p50 and p99.
func BenchmarkEventToMove(b *testing.B) {
	srv := &benchServer{next: make(chan struct{}, 1), done: make(chan struct{}), want: max(b.N, 200)}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	tok, _ := flipsight.NewToken("fsbm_bench")
	c, err := flipsight.NewClient(flipsight.Config{APIURL: hs.URL + "/api", Token: tok})
	if err != nil {
		b.Fatal(err)
	}
	bot, err := New(Options{Client: c, Engine: Engines{Name: "instant", Provider: engines.Shared(&instantEngine{})},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	b.ResetTimer()
	go func() { done <- bot.Run(ctx) }()
	select {
	case <-srv.done:
	case <-time.After(5 * time.Minute):
		b.Fatal("benchmark did not finish")
	}
	b.StopTimer()
	// The samples up to the server's want: the match never ends, so the
	// moves of the stop's drain (polled every few seconds) are not events'.
	srv.mu.Lock()
	s := slices.Clone(srv.samples[:min(len(srv.samples), srv.want)])
	srv.mu.Unlock()
	bot.Stop() // abandon the endless match rather than drain it (--drain)
	cancel()
	<-done
	slices.Sort(s)
	q := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(s[len(s)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(0, "ns/op")
}
