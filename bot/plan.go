package bot

import (
	"sync"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/timeplan"
)

// The overhead estimate's bounds: a move never costs less than minOverhead
// besides the engine's think (the loop, the request, the server), and the
// estimate starts at initialOverhead before the first move is measured.
const (
	minOverhead     = 20 * time.Millisecond
	initialOverhead = 100 * time.Millisecond
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

// planMove is the bot's call into the one clock planner (engines/timeplan)
// for the engines it times: the mover's moves left in pos (or, when the
// leg made no position, in the board's empty cells), its remaining clock,
// the cap (--max-think-seconds, 0 for none) and the measured overhead. The
// plan's Limit is the engine's budget (0: the panic mode, the quick move);
// an --engine engine gets the spec's budget_ms whatever the plan says.
func planMove(pos *othello.Position, board []int, size int, remaining, cap, overhead time.Duration) (timeplan.Move, timeplan.Moves) {
	var m timeplan.Moves
	if pos != nil {
		m = timeplan.Count(*pos)
	} else {
		empties := 0
		for _, v := range board {
			if v == 0 {
				empties++
			}
		}
		m = timeplan.CountEmpties(empties, size)
	}
	return timeplan.Plan(m, timeplan.Clock{Remaining: remaining, Cap: cap, Overhead: overhead}), m
}
