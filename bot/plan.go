package bot

import (
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// The overhead estimate's bounds: a move never costs less than minOverhead
// besides the engine's think (the loop, the request, the server), and the
// estimate starts at initialOverhead before the first move is measured.
const (
	minOverhead     = 20 * time.Millisecond
	initialOverhead = 100 * time.Millisecond
	// minEngineBudget is the least planned budget worth asking an engine
	// for: below it, the request and answer alone would hardly fit, and the
	// bot plays its quick move at once (unless the cap itself is smaller).
	minEngineBudget = 50 * time.Millisecond
)

// OverheadMeter keeps a running estimate of what a move costs on the
// clock besides the engine's think: for the bot, the time from the state's
// arrival until the move's answer arrived, less the time it waited for the
// engine; for an --engine engine (flipengine engine), the fall of its
// remaining_ms between two of its turns less its own think. It rises fast (half-way to a larger sample) and falls slowly
// (an eighth of the way), so that a starved machine is believed at once and
// forgotten only over several moves. Safe for concurrent use: one meter
// serves all legs, since what it measures is the machine and the network.
type OverheadMeter struct {
	mu  sync.Mutex
	est time.Duration
}

// NewOverheadMeter returns a meter whose estimate starts at 100 ms.
func NewOverheadMeter() *OverheadMeter { return &OverheadMeter{est: initialOverhead} }

// Observe takes in one move's measured overhead.
func (m *OverheadMeter) Observe(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if d > m.est {
		m.est += (d - m.est) / 2
	} else {
		m.est -= (m.est - d) / 8
	}
	m.est = max(m.est, minOverhead)
}

// Estimate returns the current estimate.
func (m *OverheadMeter) Estimate() time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.est
}

// MovesLeft estimates the mover's own moves left in a leg, this one
// included: half the empty squares, rounded up, plus one for the passes
// that can give the mover two moves in a row. pos may be nil; then the
// empty cells (0) of board count.
func MovesLeft(pos *othello.Position, board []int) int {
	empties := 0
	if pos != nil {
		empties = pos.Empties().Count()
	} else {
		for _, v := range board {
			if v == 0 {
				empties++
			}
		}
	}
	return (empties+1)/2 + 1
}

// Plan returns the time the clock plan gives an engine that flipbot times
// itself (the built-in engine, NBoard, Edax, Egaroucid) for a move, given
// the mover's remaining clock, the cap (--max-think-seconds, 0 for none),
// the measured per-move overhead and the own moves left (this one
// included). It never shapes the spec's wire fields: an --engine engine gets
// the spec's budget_ms (engines.SpecBudget) whatever the plan says.
//
// Every move left is reserved half again its measured overhead (the
// estimate lags a machine that is getting slower), and the margin once; of
// the rest (the spare time), one move may take at most twice its even
// share, never more than the spare time, nor the spec's min(cap, remaining
// − 0.75 s). Since each move takes at most 2/movesLeft of the spare time,
// the spare time stays positive until the last move: while the overhead is
// not underestimated by a third, the clock cannot run out, however often
// the engine fails to answer. A result of 0 is the panic mode: the reserve
// is all the clock has, and the bot answers at once with its quick move.
func Plan(remaining, cap, overhead time.Duration, movesLeft int) time.Duration {
	movesLeft = max(movesLeft, 1)
	spare := remaining - engines.SpecMargin - time.Duration(movesLeft)*overhead*3/2
	if spare <= 0 {
		return 0
	}
	full := engines.SpecBudget(remaining, cap)
	b := min(spare, 2*spare/time.Duration(movesLeft), full)
	if b < minEngineBudget && b < full {
		return 0 // cut below what an engine needs (a smaller cap is the user's)
	}
	return b
}
