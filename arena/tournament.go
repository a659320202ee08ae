package arena

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
)

// TournamentConfig configures [RunTournament].
type TournamentConfig struct {
	// A and B open the two sides' engines: one session per match and side,
	// opened at the side's first move in the match and closed when the
	// match ends, so that engines that keep per-game state (processes)
	// never mix matches. NameA and NameB name them (2–24 chars).
	A, B         engines.Provider
	NameA, NameB string
	// StrictA and StrictB: an engine failure (no answer within the budget,
	// an illegal answer) makes no move, so the leg is lost on time, as with
	// the official connector; otherwise the first legal move is played.
	StrictA, StrictB bool
	// Mode is the game; Pairs the number of paired matches (two legs each).
	Mode  othello.Mode
	Pairs int
	// Clock is each colour's time per leg (60 s when 0).
	Clock time.Duration
	// Concurrency is the number of matches at once (1 when 0).
	Concurrency int
	// Progress, when set, is called after every match.
	Progress func(TournamentStats)
	// Logger receives the server's log lines (discarded when nil).
	Logger *slog.Logger
	// Seed seeds the random starts (0: from the clock).
	Seed uint64
	// ViaAPI plays both engines as registered bots through the HTTP API
	// on a loopback port, with flipsight.Client polling every 20 ms (as a
	// connector would; network time counts on the clocks), instead of as
	// server-side players.
	ViaAPI bool
	// PollEvery is the API players' poll interval (20 ms when 0).
	PollEvery time.Duration
	// OnMatch, when set, is called with every ended match's full object
	// (both legs with their histories), as agent_poll shows it.
	OnMatch func(flipsight.Match)
}

// TournamentStats are the results from A's point of view. A match (a pair
// of legs) is won by the disc totals, so W/D/L count matches.
type TournamentStats struct {
	Mode    string `json:"mode"`
	Pairs   int    `json:"pairs"`
	Played  int    `json:"played"`
	Wins    int    `json:"wins"`
	Draws   int    `json:"draws"`
	Losses  int    `json:"losses"`
	Aborted int    `json:"aborted"`
	// Timeouts counts matches that ended with a timeout of A or B.
	Timeouts int `json:"timeouts"`
	// DiscsA and DiscsB are the disc totals over all matches.
	DiscsA int `json:"discs_a"`
	DiscsB int `json:"discs_b"`
	// Score is A's score in per cent (win 1, draw ½).
	Score float64 `json:"score_pct"`
	// Elo is A's rating difference over B with its 95 % interval
	// [EloLow, EloHigh] (±Inf at a 0 % or 100 % bound).
	Elo     float64 `json:"elo"`
	EloLow  float64 `json:"elo_low"`
	EloHigh float64 `json:"elo_high"`
	scores  []float64
}

// add counts one ended match.
func (t *TournamentStats) add(r MatchResult) {
	t.Played++
	if r.Status != "finished" {
		t.Aborted++
		return
	}
	t.DiscsA += r.Totals[0]
	t.DiscsB += r.Totals[1]
	if r.FinishReason == "timeout" || r.FinishReason == "double_timeout" {
		t.Timeouts++
	}
	switch r.Winner {
	case 0:
		t.Wins++
		t.scores = append(t.scores, 1)
	case 1:
		t.Losses++
		t.scores = append(t.scores, 0)
	default:
		t.Draws++
		t.scores = append(t.scores, 0.5)
	}
	t.Score, t.Elo, t.EloLow, t.EloHigh = EloInterval(t.scores)
}

// EloInterval returns the mean score in per cent (win 1, draw ½, loss 0),
// the Elo difference it implies, and the Elo bounds of the 95 % Wilson score
// interval of the mean score. Wilson's interval stays meaningful at 0 % and
// 100 % (one bound finite); it treats draws as half wins, so it is slightly
// wider than needed when there are many draws.
func EloInterval(scores []float64) (pct, elo, lo, hi float64) {
	n := float64(len(scores))
	if n == 0 {
		return 0, 0, math.Inf(-1), math.Inf(1)
	}
	p := 0.0
	for _, s := range scores {
		p += s
	}
	p /= n
	const z = 1.959964
	den := 1 + z*z/n
	centre := (p + z*z/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / den
	low, high := centre-half, centre+half
	if p == 1 { // exactly 1 in theory; keep rounding from making it finite
		high = 1
	}
	if p == 0 {
		low = 0
	}
	return 100 * p, eloOf(p), eloOf(low), eloOf(high)
}

func eloOf(p float64) float64 {
	switch {
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/p-1)
}

// matchSessions is a side's engines in a tournament: one session per
// match, opened (from its provider) at the side's first move in the match
// and closed, once, when the tournament sees the match end (end), or when
// the tournament ends (closeAll).
type matchSessions struct {
	name string
	p    engines.Provider

	mu      sync.Mutex
	byMatch map[int64]engines.Session
	ended   map[int64]bool // closed: a late move opens nothing again
	closed  bool
}

func newMatchSessions(name string, p engines.Provider) *matchSessions {
	return &matchSessions{name: name, p: p, byMatch: map[int64]engines.Session{}, ended: map[int64]bool{}}
}

// session returns match's session, opened on first use.
func (ms *matchSessions) session(match int64, mode othello.Mode) (engines.Session, error) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if s := ms.byMatch[match]; s != nil {
		return s, nil
	}
	if ms.closed || ms.ended[match] {
		return nil, engines.ErrSessionClosed
	}
	s, err := ms.p.Open(context.Background(), engines.MatchInfo{ID: match, Mode: mode, Legs: 2})
	if err != nil {
		return nil, fmt.Errorf("start engine %s: %w", ms.name, err)
	}
	ms.byMatch[match] = s
	return s, nil
}

// leg is the engine of one leg of match, for the server-side and API
// players, which ask an engines.Engine.
func (ms *matchSessions) leg(match int64, leg int) engines.Engine {
	return legEngine{ms: ms, match: match, leg: leg}
}

// end closes match's session, once.
func (ms *matchSessions) end(match int64) {
	ms.mu.Lock()
	s := ms.byMatch[match]
	delete(ms.byMatch, match)
	ms.ended[match] = true
	ms.mu.Unlock()
	if s != nil {
		_ = s.Close()
	}
}

// closeAll closes every session not ended.
func (ms *matchSessions) closeAll() {
	ms.mu.Lock()
	ms.closed = true
	list := make([]engines.Session, 0, len(ms.byMatch))
	for id, s := range ms.byMatch {
		list = append(list, s)
		delete(ms.byMatch, id)
	}
	ms.mu.Unlock()
	for _, s := range list {
		_ = s.Close()
	}
}

// legEngine asks one leg's engine of a match's session.
type legEngine struct {
	ms    *matchSessions
	match int64
	leg   int
}

func (e legEngine) Name() string               { return e.ms.name }
func (e legEngine) Supports(othello.Mode) bool { return true }
func (e legEngine) Close() error               { return nil } // the session is closed when its match ends

func (e legEngine) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	s, err := e.ms.session(e.match, req.Position.Mode)
	if err != nil {
		return engines.Result{}, err
	}
	return s.Move(ctx, e.leg, req)
}

// RunTournament plays cfg.Pairs paired matches between A (bot_a) and B
// through the arena's own match code (random starts, colours swapped,
// clocks, timeouts, scoring), cfg.Concurrency at a time, and returns the
// results. It stops early when ctx ends.
func RunTournament(ctx context.Context, cfg TournamentConfig) (TournamentStats, error) {
	stats := TournamentStats{Mode: cfg.Mode.String(), Pairs: cfg.Pairs}
	if cfg.A == nil || cfg.B == nil || cfg.Pairs <= 0 {
		return stats, fmt.Errorf("tournament: need two engines and at least one pair")
	}
	if cfg.NameA == cfg.NameB {
		cfg.NameB += "-2"
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 1
	}
	ea, eb := newMatchSessions(cfg.NameA, cfg.A), newMatchSessions(cfg.NameB, cfg.B)
	defer ea.closeAll()
	defer eb.closeAll()
	bots := []BotConfig{
		{Name: cfg.NameA, Builtin: true, sessions: ea, Modes: []othello.Mode{cfg.Mode}, Strict: cfg.StrictA},
		{Name: cfg.NameB, Builtin: true, sessions: eb, Modes: []othello.Mode{cfg.Mode}, Strict: cfg.StrictB},
	}
	var tokens [2]string
	if cfg.ViaAPI {
		for i := range bots {
			tokens[i] = randomToken()
			bots[i] = BotConfig{Name: bots[i].Name, Token: tokens[i], Modes: bots[i].Modes, MaxMatches: cfg.Concurrency, NoAutoMatch: true}
		}
	}
	srv, err := New(Config{
		Clock:       clock.System(),
		Logger:      cfg.Logger,
		Seed:        cfg.Seed,
		ClockPerLeg: cfg.Clock,
		Bots:        bots,
		MaxFinished: cfg.Concurrency + 8,
	})
	if err != nil {
		return stats, fmt.Errorf("tournament: %w", err)
	}
	defer srv.Close()
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	go srv.Run(rctx, 20*time.Millisecond)
	var players []*apiPlayer
	if cfg.ViaAPI {
		var err error
		if players, err = startPlayers(rctx, srv, cfg, tokens, [2]*matchSessions{ea, eb}); err != nil {
			return stats, err
		}
		defer func() {
			stop()
			for _, p := range players {
				p.wg.Wait()
			}
		}()
	}

	var mu sync.Mutex
	next := 0
	var firstErr error
	var wg sync.WaitGroup
	for w := 0; w < cfg.Concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if next >= cfg.Pairs || ctx.Err() != nil || firstErr != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				r, err := playOne(ctx, srv, cfg.NameA, cfg.NameB, cfg.Mode, cfg.ViaAPI)
				if err == nil && cfg.OnMatch != nil {
					if m, ok := srv.MatchJSON(r.ID); ok {
						cfg.OnMatch(m)
					}
				}
				ea.end(r.ID)
				eb.end(r.ID)
				for _, p := range players {
					p.forget(r.ID)
				}
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
				} else {
					stats.add(r)
					if cfg.Progress != nil {
						cfg.Progress(stats)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return stats, firstErr
}

// startPlayers serves the arena on a loopback port and starts an API
// player per side; it returns once both bots are online.
func startPlayers(ctx context.Context, srv *Server, cfg TournamentConfig, tokens [2]string, engs [2]*matchSessions) ([]*apiPlayer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("tournament: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	go func() {
		<-ctx.Done()
		_ = hs.Close()
	}()
	base := "http://" + ln.Addr().String()
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	strict := [2]bool{cfg.StrictA, cfg.StrictB}
	var players []*apiPlayer
	for i, tok := range tokens {
		t, err := flipsight.NewToken(tok)
		if err != nil {
			return nil, fmt.Errorf("tournament: %w", err)
		}
		c, err := flipsight.NewClient(flipsight.Config{APIURL: base + APIPath, StreamURL: base + StreamPath, Token: t})
		if err != nil {
			return nil, fmt.Errorf("tournament: %w", err)
		}
		every := cfg.PollEvery
		if every <= 0 {
			every = 20 * time.Millisecond
		}
		p := &apiPlayer{c: c, sessions: engs[i], strict: strict[i], log: log, every: every, inflight: map[thinkKey]bool{}}
		players = append(players, p)
		go p.run(ctx)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !srv.Online(cfg.NameA) || !srv.Online(cfg.NameB) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return players, fmt.Errorf("tournament: the API players did not come online")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return players, nil
}

// playOne starts a match and waits for its end.
func playOne(ctx context.Context, srv *Server, a, b string, mode othello.Mode, viaAPI bool) (MatchResult, error) {
	ch, unwatch := srv.Watch()
	defer unwatch()
	var id int64
	var err error
	if viaAPI {
		// A challenges B through the server; B's player accepts over HTTP.
		id, err = srv.Challenge(a, b, mode)
	} else {
		id, err = srv.StartMatch(a, b, mode)
	}
	if err != nil {
		return MatchResult{}, fmt.Errorf("tournament: %w", err)
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		r, ok := srv.Result(id)
		if !ok {
			return MatchResult{ID: id}, fmt.Errorf("tournament: match %d vanished", id)
		}
		if r.Ended {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-ch:
		case <-t.C:
		}
	}
}
