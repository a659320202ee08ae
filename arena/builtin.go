package arena

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// thinkKey identifies one position a server-side player is thinking about.
type thinkKey struct {
	match    int64
	leg      int
	revision int64
}

// schedule starts a server-side player on every active leg of m whose side
// to move is a built-in bot or the human of a human match. Called with mu
// held.
func (s *Server) schedule(m *match) {
	if s.closed {
		return
	}
	now := s.nowMS()
	for li, l := range m.legs {
		if !l.active() {
			continue
		}
		p := l.mover()
		var eng engines.Engine
		strict := false
		if m.human && m.botOf(p) == 0 {
			eng = humanPlayer{}
		} else if b := s.botByID(m.botOf(p)); b != nil && b.builtin {
			eng, strict = b.engine, b.strict
			if b.sessions != nil {
				eng = b.sessions.leg(m.id, li)
			}
		} else {
			continue
		}
		key := thinkKey{m.id, li, l.revision}
		if s.thinking[key] {
			continue
		}
		s.thinking[key] = true
		req := s.engineRequest(m, li, l, now)
		s.wg.Add(1)
		go s.think(eng, key, p, req, strict)
	}
}

// maxThinkMS is the official connector's default per-move cap.
const maxThinkMS = 10_000

// engineRequest builds the request a server-side player gets: the rules'
// position and the spec's --engine JSON for it.
func (s *Server) engineRequest(m *match, li int, l *leg, now int64) engines.Request {
	rem := max(0, l.remaining(now))
	// As the official connector: min(--max-think-seconds (10 s), remaining − 750 ms),
	// but never below half the remaining time.
	budget := min(maxThinkMS, max(rem-750, rem/2))
	wr := othello.NewEngineRequest(l.pos)
	wr.RemainingMS = rem
	wr.MatchID = m.id
	wr.Leg = li
	wr.Revision = l.revision
	if h, err := json.Marshal(l.history); err == nil {
		wr.History = h
	}
	wr.BudgetMS = budget
	if m.human {
		wr.RoundNo = ptr(int(m.roundNo))
		wr.RoomCreatedAt = ptr(m.roomAt)
	}
	return engines.Request{
		Position:  l.pos,
		Remaining: time.Duration(rem) * time.Millisecond,
		// The clock was read now: a connector that writes the request
		// later (engines/jsonline, while the match's other leg holds the
		// engine) stamps remaining_ms and budget_ms at the write from it.
		At:     time.Now(),
		Budget: time.Duration(budget) * time.Millisecond,
		Cap:    maxThinkMS * time.Millisecond,
		Wire:   &wr,
	}
}

// thinkDeadline is when a player's ask for req ends (the clock was read at
// req.At). A strict engine is asked as by the official connector with
// --engine: the connector bounds its wait for the engine by the mover's
// clock and its answer by budget_ms from the request's write
// (engines/jsonline), so only the clock, and a second past it, ends the
// ask; bounded by Budget from the turn's start, a request that waited while
// the match's other leg was answered was killed within its own budget_ms
// and the leg lost on time (issue 38). A lenient engine's ask ends a second
// after its Budget, for the fallback move.
func thinkDeadline(req engines.Request, strict bool) time.Time {
	if strict {
		return req.At.Add(req.Remaining + time.Second)
	}
	return req.At.Add(req.Budget + time.Second)
}

// think asks eng for a move and plays it through the same path as the API.
// A failing engine, or an illegal answer, makes a legal fallback move;
// with strict, as the official connector with --engine, no move is made
// and the leg runs out of time.
func (s *Server) think(eng engines.Engine, key thinkKey, p int, req engines.Request, strict bool) {
	defer s.wg.Done()
	ctx, cancel := context.WithDeadline(s.ctx, thinkDeadline(req, strict))
	res, err := eng.Move(ctx, req)
	cancel()
	move := res.Move
	if err != nil || !legalOrPass(req.Position, move) {
		if s.ctx.Err() != nil {
			return
		}
		if err == nil {
			err = fmt.Errorf("illegal answer %s", othello.SquareName(move, req.Position.Size()))
		}
		if strict {
			// Keep the key: this position is not asked again.
			s.log.Warn("engine failed; no move, the leg runs out of time", "engine", eng.Name(), "match", key.match, "leg", key.leg, "err", err)
			return
		}
		s.log.Warn("server-side engine failed; playing a fallback move", "engine", eng.Name(), "match", key.match, "err", err)
		move = fallback(req.Position)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.thinking, key)
	if s.closed {
		return
	}
	m := s.matches[key.match]
	if m == nil {
		return
	}
	now := s.nowMS()
	if code := s.play(m, key.leg, key.revision, p, move, now); code != "" && code != flipsight.CodeStaleRevision {
		s.log.Debug("server-side move refused", "match", key.match, "leg", key.leg, "error", string(code))
	}
}

func legalOrPass(pos othello.Position, mv int) bool {
	if mv == othello.Pass {
		return pos.Legal().IsZero()
	}
	return pos.Legal().Has(mv)
}

func fallback(pos othello.Position) int {
	if l := pos.LegalMoves(); len(l) > 0 {
		return l[0]
	}
	return othello.Pass
}

// humanPlayer plays the human side of test human matches: the first legal
// move, at once.
type humanPlayer struct{}

// Name, Supports, Close and Move implement engines.Engine.
func (humanPlayer) Name() string               { return "human" }
func (humanPlayer) Supports(othello.Mode) bool { return true }
func (humanPlayer) Close() error               { return nil }
func (humanPlayer) Move(_ context.Context, r engines.Request) (engines.Result, error) {
	return engines.Result{Move: fallback(r.Position)}, nil
}

// Player is the arena's own small engine for the lowest built-in levels:
// level 0 plays a random legal move, level 1 and above a greedy one (most discs after the move, fewest in anti;
// ties broken at random). It is safe for concurrent use.
type Player struct {
	level int
	name  string
}

// NewPlayer returns the arena's player at level.
func NewPlayer(level int) *Player {
	return &Player{level: level, name: fmt.Sprintf("arena-player-%d", level)}
}

// Name reports the player and level.
func (p *Player) Name() string { return p.name }

// Supports every mode.
func (p *Player) Supports(othello.Mode) bool { return true }

// Close does nothing.
func (p *Player) Close() error { return nil }

// Move picks a move as the level says.
func (p *Player) Move(_ context.Context, r engines.Request) (engines.Result, error) {
	start := time.Now()
	legal := r.Position.LegalMoves()
	if len(legal) == 0 {
		return engines.Result{Move: othello.Pass, Elapsed: time.Since(start)}, nil
	}
	if p.level <= 0 {
		return engines.Result{Move: legal[rand.IntN(len(legal))], Depth: 0, Elapsed: time.Since(start)}, nil
	}
	best, bestScore, ties := legal[0], -1<<30, 0
	for _, mv := range legal {
		next, err := r.Position.Play(mv)
		if err != nil {
			continue
		}
		b, w := next.Count()
		score := b - w
		if r.Position.Turn == othello.White {
			score = -score
		}
		if r.Position.Mode.LessWins() {
			score = -score
		}
		switch {
		case score > bestScore:
			best, bestScore, ties = mv, score, 1
		case score == bestScore:
			ties++
			if rand.IntN(ties) == 0 {
				best = mv
			}
		}
	}
	return engines.Result{Move: best, Depth: 1, Score: float64(bestScore), Elapsed: time.Since(start)}, nil
}
