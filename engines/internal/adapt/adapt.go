// Package adapt holds what the external-engine adapters share: the moves
// that need no engine, the check of an engine's answer against the rules,
// and the time an adapter may wait.
//
// Files: adapt.go (forced moves, [Check], budgets, waiting for a start-up),
// think.go ([ThinkTime], the one clock plan's think as an adapter uses it,
// and the allowances).
//
// It may import engines, engines/othello and engines/timeplan.
package adapt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// DefaultBudget is the wait used when a request has no Budget (the
// connector's default per-move cap).
const DefaultBudget = 10 * time.Second

// ErrGameOver is returned for a request whose position has no move for
// either side.
var ErrGameOver = errors.New("game is over: no move to make")

// Forced returns the move to play without asking an engine: Pass when the
// side to move has no legal move, or the only legal move. It returns ok =
// false when the engine must choose, and an error when the game is over.
func Forced(pos othello.Position) (move int, ok bool, err error) {
	legal := pos.Legal()
	switch legal.Count() {
	case 0:
		if pos.GameOver() {
			return 0, false, ErrGameOver
		}
		return othello.Pass, true, nil
	case 1:
		return legal.First(), true, nil
	}
	return 0, false, nil
}

// Check returns an error unless move is legal in pos by the rules (a pass
// only when the side to move has no legal move).
func Check(pos othello.Position, move int) error {
	if _, err := pos.Play(move); err != nil {
		return fmt.Errorf("engine answered %s: %w", othello.SquareName(move, pos.Size()), err)
	}
	return nil
}

// Budget returns the request's Budget; DefaultBudget for a request with
// neither a budget nor a clock (made off the API); zero when the budget is
// used up (negative: the clock is nearly out).
func Budget(req engines.Request) time.Duration {
	switch {
	case req.Budget > 0:
		return req.Budget
	case req.Budget == 0 && req.Remaining == 0:
		return DefaultBudget
	}
	return 0
}

// Start returns the context to wait in for req (see WithBudget), or an
// error without one when there is no time to ask the engine at all: no
// budget left, or ctx already ended.
func Start(ctx context.Context, start time.Time, req engines.Request) (context.Context, context.CancelFunc, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("engine move cancelled: %w", err)
	}
	if Budget(req) <= 0 {
		return nil, nil, fmt.Errorf("%w: no budget left (%v)", ErrTimeout, req.Budget)
	}
	wctx, cancel := WithBudget(ctx, start, req)
	return wctx, cancel, nil
}

// WithBudget returns a context that ends at the request's budget from start
// (or earlier with ctx).
func WithBudget(ctx context.Context, start time.Time, req engines.Request) (context.Context, context.CancelFunc) {
	return context.WithDeadline(ctx, start.Add(Budget(req)))
}

// ReadyMargin is the part of a move's budget that a wait for an engine
// still starting leaves: time for a short search and its answer once the
// engine is ready, or for the caller's fallback move when it is not.
const ReadyMargin = 500 * time.Millisecond

// ReadyBy returns when a move that started at start stops waiting for an
// engine process that is still starting: ReadyMargin (half the budget,
// when that is less) before its budget ends. An adapter then returns an
// error wrapping engines.ErrNotReady and keeps the process starting for the
// next move. The wait is as long as the budget allows because the moves
// made while a process loads come one after the other: the clock they
// spend waiting is the start-up's, whatever each one's share, and a longer
// wait leaves fewer of them to fallbacks.
func ReadyBy(start time.Time, req engines.Request) time.Time {
	b := Budget(req)
	return start.Add(max(0, b-min(ReadyMargin, b/2)))
}

// After returns req as it stands once waited of it has passed (a wait for
// the engine's start-up, or for its turn): the mover's clock and the budget
// less waited, so that a think time planned from it fits in what is left.
func After(req engines.Request, waited time.Duration) engines.Request {
	if waited <= 0 {
		return req
	}
	b := Budget(req) - waited
	if b <= 0 {
		b = -1 // Budget reports none left
	}
	req.Budget = b
	if req.Remaining > 0 {
		req.Remaining = max(req.Remaining-waited, time.Nanosecond)
	}
	return req
}

// ErrTimeout is wrapped by the error an adapter returns when the engine
// did not answer within the budget.
var ErrTimeout = errors.New("engine did not answer within the budget")

// WaitErr converts the end of a wait on ctx (made by WithBudget from
// parent) into the error to return: ErrTimeout when the budget ran out, the
// parent's error when it was cancelled.
func WaitErr(parent, ctx context.Context) error {
	if err := parent.Err(); err != nil {
		return fmt.Errorf("engine move cancelled: %w", err)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ctx.Err()
}
