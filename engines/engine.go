package engines

import (
	"context"
	"errors"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// Request asks an engine for a move in one position.
//
// It carries two times that mean different things. Budget is flipbot's own
// clock plan for the move: the engines that flipbot times itself (the
// built-in engine, NBoard, Edax, Egaroucid) answer within it. The spec's
// budget_ms is something else: min(--max-think-seconds, remaining − 0.75 s),
// the longest the connector waits for an --engine answer, measured when the
// request reaches the engine; [Request.ClockAt] computes it, with the
// remaining clock, at that instant.
type Request struct {
	// Position is the position to play, with its side to move.
	Position othello.Position
	// Remaining is the mover's clock at At (the server's figure less the
	// time since it arrived).
	Remaining time.Duration
	// At is the instant Remaining was read; the zero time means the moment
	// Move is called.
	At time.Time
	// Budget is the time the clock plan (engines/timeplan) gives this move:
	// the most it may take, for the engines flipbot times itself; each
	// aims at the plan's think below it (timeplan.ForRequest plans it again
	// from this request, to the same figure). It never goes on the wire.
	Budget time.Duration
	// Overhead is the per-move overhead the caller measured and planned the
	// Budget with (0: timeplan's default), so that an engine's own call to
	// the planner gives the same plan.
	Overhead time.Duration
	// Cap is the per-move cap of the spec's budget_ms (--max-think-seconds);
	// 0 means none but the clock.
	Cap time.Duration
	// Leg is the leg of the match the move is for (0 or 1), for engines made
	// per match that keep one program per leg; 0 off the API.
	Leg int
	// Wire is the spec's engine request for this move (match_id, leg,
	// revision, history, round_no, room_created_at, …), for engines that
	// speak that protocol; its remaining_ms and budget_ms are filled from
	// ClockAt when it is written. It may be nil for requests made off the
	// API.
	Wire *othello.EngineRequest
}

// SpecMargin is what the spec's budget_ms keeps back from the mover's
// clock: 「残り時間から0.75秒を引いた値」.
const SpecMargin = 750 * time.Millisecond

// SpecBudget returns the spec's budget_ms for a mover with remaining on its
// clock: min(cap, remaining − SpecMargin), or remaining − SpecMargin when cap
// is 0; never negative. It is the longest the connector waits for an
// --engine answer, not a think time.
func SpecBudget(remaining, cap time.Duration) time.Duration {
	b := remaining - SpecMargin
	if cap > 0 && cap < b {
		b = cap
	}
	return max(b, 0)
}

// ClockAt returns the mover's remaining clock at now (Remaining less the
// time since At, never negative) and the spec's budget_ms at that instant.
func (r Request) ClockAt(now time.Time) (remaining, budget time.Duration) {
	remaining = r.Remaining
	if !r.At.IsZero() {
		remaining -= now.Sub(r.At)
	}
	remaining = max(remaining, 0)
	return remaining, SpecBudget(remaining, r.Cap)
}

// Result is an engine's answer.
type Result struct {
	// Move is a square, or othello.Pass.
	Move int
	// Depth is the depth searched (0 when unknown); Exact reports an exact
	// solve to the end of the game.
	Depth int
	Exact bool
	// Score is the engine's evaluation for the side to move in discs
	// (final disc difference when Exact), when the engine reports one.
	Score float64
	// Nodes searched, when known.
	Nodes uint64
	// PV is the principal variation starting with Move, when known.
	PV []int
	// Elapsed is the time the engine took.
	Elapsed time.Duration
}

// Engine chooses moves. Implementations are safe for concurrent use by
// several goroutines unless they document otherwise (the bot runs the legs
// of its matches at once).
type Engine interface {
	// Name is a short human-readable name for logs and for the
	// environment.engine field of agent_poll (≤ 120 characters).
	Name() string
	// Supports reports whether the engine can play a mode. The bot rejects
	// challenges in modes its engine does not support.
	Supports(mode othello.Mode) bool
	// Move returns a legal move (or othello.Pass when there is none) for the
	// side to move. It returns by the request's Budget and as soon as ctx is
	// cancelled; when cancelled it still returns the best move found so far
	// if it has one. An error means no move: the caller plays a fallback.
	Move(ctx context.Context, req Request) (Result, error)
	// Close releases the engine's resources (processes, memory).
	Close() error
}

// ErrNotReady is wrapped by the error of a Move made while the engine is
// still starting (an external program loading its tables): the caller plays
// a fallback for this move but keeps the engine, which is not broken and
// will answer the next one. Replacing it would start the wait over.
var ErrNotReady = errors.New("engine is still starting")

// PonderRequest asks a [Ponderer] to think on the opponent's time.
type PonderRequest struct {
	// Position is the position after the bot's own move: the opponent is
	// to move (or must pass).
	Position othello.Position
	// Expected is the line the engine expects from Position on, the
	// opponent's reply first (the rest of the principal variation of the
	// bot's own move: Result.PV[1:]); empty when unknown, and then the
	// engine guesses the reply itself.
	Expected []int
	// Leg is the leg of the match, as in Request.
	Leg int
}

// Ponderer is implemented by engines that think on the opponent's time
// (pondering). The bot calls Ponder after each own move that an engine
// with this method made, and cancels ctx when that leg's opponent has
// moved or the leg has ended; the next Move of the leg then finds what the
// pondering learnt (a ponder hit when the opponent played the expected
// reply; a miss costs nothing but memory). The built-in engine implements
// it; the external adapters (--engine, NBoard, Edax, Egaroucid) do not:
// their programs are only asked for moves.
//
// Ponder must never slow a Move down: it uses only the cores no Move
// needs, and a Move that starts while it thinks gets its cores at once.
type Ponderer interface {
	// Ponder thinks about req until ctx is done and returns once all the
	// work it started has stopped. It returns early, with nil, when there
	// is nothing to think about (the game is over); an error means it
	// could not ponder at all.
	Ponder(ctx context.Context, req PonderRequest) error
}

// QuickMover is implemented by engines that search in the caller's
// process and answer within milliseconds (the built-in engine). The bot
// asks one for the moves its engine is not asked for or could not make —
// the clock plan's panic mode, a fallback after the engine failed — for
// the plan's quick think (timeplan's Move.Quick, at most its MinThink),
// whatever engine plays the match's other moves.
type QuickMover interface {
	// QuickMove returns a legal move (or othello.Pass when there is none)
	// for pos's side to move, searched for at most think (under a
	// millisecond: one ply). It returns as soon as ctx is cancelled,
	// with the best move found so far.
	QuickMove(ctx context.Context, pos othello.Position, think time.Duration) (Result, error)
}
