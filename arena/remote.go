package arena

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/text"
)

// apiPlayer plays one bot through the HTTP API with flipsight.Client, as
// a connector would: it polls, accepts challenges addressed to it, and asks
// its engine for a move in every leg where it is to move, once per
// (match, leg, revision). Tournaments use it with ViaAPI.
type apiPlayer struct {
	c   *flipsight.Client
	eng engines.Engine
	// sessions, when set, plays each match with its own session
	// (tournaments) instead of eng.
	sessions *matchSessions
	strict   bool
	log      *slog.Logger
	every    time.Duration

	mu       sync.Mutex
	inflight map[thinkKey]bool
	wg       sync.WaitGroup
}

// run plays until ctx ends.
func (p *apiPlayer) run(ctx context.Context) {
	defer p.wg.Wait()
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		if err := p.step(ctx); err != nil && ctx.Err() == nil {
			p.log.Debug("api player", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (p *apiPlayer) step(ctx context.Context) error {
	name := ""
	if p.sessions != nil {
		name = p.sessions.name
	} else {
		name = p.eng.Name()
	}
	poll, err := p.c.Poll(ctx, &flipsight.Environment{Engine: text.Clip(name, flipsight.MaxEnvironmentLen)})
	if err != nil {
		return fmt.Errorf("poll: %w", err)
	}
	me := poll.Bot.ID
	for i := range poll.Matches {
		m := &poll.Matches[i]
		switch {
		case m.Status == flipsight.MatchPending && m.BotB == me:
			if _, err := p.c.Accept(ctx, m.ID); err != nil {
				p.log.Debug("accept", "match", m.ID, "err", err)
			}
		case m.Status == flipsight.MatchRunning && m.State != nil:
			part := m.Participant(me)
			for li := range m.State.Legs {
				p.maybeMove(ctx, m, li, part, poll.ServerNowMS)
			}
		}
	}
	return nil
}

// maybeMove starts the engine on leg li when it is this bot's move there.
func (p *apiPlayer) maybeMove(ctx context.Context, m *flipsight.Match, li, part int, serverNow int64) {
	l := &m.State.Legs[li]
	color := othello.Black
	if l.BlackParticipant != part {
		color = othello.White
	}
	if l.Status != flipsight.LegActive || l.Turn != int(color) {
		return
	}
	key := thinkKey{m.ID, li, l.Revision}
	p.mu.Lock()
	if p.inflight[key] {
		p.mu.Unlock()
		return
	}
	p.inflight[key] = true
	p.mu.Unlock()
	pos, err := othello.Leg{Board: l.Board, Turn: l.Turn, Placed: othello.Placed{Black: l.Placed.Black, White: l.Placed.White}}.
		Position(m.State.GameMode, m.State.BoardSize, m.State.BlockedSquares)
	if err != nil {
		p.log.Warn("api player: bad leg", "match", m.ID, "leg", li, "err", err)
		return
	}
	rem := int64(l.ClocksMS[color-1]) - (serverNow - l.TurnStartedMS)
	rem = max(rem, 0)
	budget := min(maxThinkMS, max(rem-750, rem/2))
	wr := othello.NewEngineRequest(pos)
	wr.RemainingMS, wr.MatchID, wr.Leg, wr.Revision, wr.BudgetMS = rem, m.ID, li, l.Revision, budget
	if h, err := json.Marshal(l.History); err == nil {
		wr.History = h
	}
	req := engines.Request{Position: pos, Remaining: time.Duration(rem) * time.Millisecond, At: time.Now(),
		Budget: time.Duration(budget) * time.Millisecond, Cap: maxThinkMS * time.Millisecond, Wire: &wr}
	eng := p.eng
	if p.sessions != nil {
		eng = p.sessions.leg(m.ID, li)
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		mctx, cancel := context.WithDeadline(ctx, thinkDeadline(req, p.strict))
		res, err := eng.Move(mctx, req)
		cancel()
		mv := res.Move
		if err != nil || !legalOrPass(pos, mv) {
			if p.strict || ctx.Err() != nil {
				return
			}
			mv = fallback(pos)
		}
		if _, err := p.c.Move(ctx, flipsight.MoveRequest{MatchID: m.ID, Leg: li, Revision: l.Revision, Move: flipsight.SquareMove(mv)}); err != nil {
			p.log.Debug("move", "match", m.ID, "leg", li, "err", err)
		}
	}()
}

// PlayOverAPI plays one bot through the HTTP API at apiURL/streamURL with
// flipsight.Client until ctx ends: it polls every interval (200 ms when
// 0), accepts challenges addressed to the bot, and asks eng for a move in
// every leg where the bot is to move (a failed answer plays the first legal
// move). It is a minimal connector, for demos and tests; the project's
// connector is cmd/flipbot.
func PlayOverAPI(ctx context.Context, apiURL, streamURL, token string, eng engines.Engine, interval time.Duration, log *slog.Logger) error {
	t, err := flipsight.NewToken(token)
	if err != nil {
		return fmt.Errorf("api player: %w", err)
	}
	c, err := flipsight.NewClient(flipsight.Config{APIURL: apiURL, StreamURL: streamURL, Token: t})
	if err != nil {
		return fmt.Errorf("api player: %w", err)
	}
	if interval <= 0 {
		interval = 200 * time.Millisecond
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &apiPlayer{c: c, eng: eng, log: log, every: interval, inflight: map[thinkKey]bool{}}
	p.run(ctx)
	return ctx.Err()
}

// forget drops the in-flight marks of a match that ended.
func (p *apiPlayer) forget(id int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.inflight {
		if k.match == id {
			delete(p.inflight, k)
		}
	}
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return "fsbm_arena_" + hex.EncodeToString(b)
}
