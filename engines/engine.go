// Package engines defines how the bot talks to an engine of any kind — the
// built-in one and the adapters for external programs — and holds them in
// its sub-packages:
//
//	engines/othello  the rules of all five modes on bitboards
//
// Every engine answers a [Request] with a [Result] through the [Engine]
// interface; the bot does not know which kind it is talking to.
package engines

import (
	"context"
	"errors"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// Request asks an engine for a move in one position.
type Request struct {
	// Position is the position to play, with its side to move.
	Position othello.Position
	// Remaining is the mover's clock when the request was made (the server's
	// figure less the time since it arrived).
	Remaining time.Duration
	// Budget is the longest the caller waits for the answer: min(per-move
	// cap, Remaining − safety margin). It is a ceiling, not a target: an
	// engine allots its own think time below it.
	Budget time.Duration
	// Wire is the spec's engine request for this move (match_id, leg,
	// revision, history, round_no, room_created_at, …), for engines that
	// speak that protocol. It may be nil for requests made off the API.
	Wire *othello.EngineRequest
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
