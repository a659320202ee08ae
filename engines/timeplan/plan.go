package timeplan

import (
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

const (
	// DefaultOverhead is what a move costs on the clock besides the
	// engine's think when nothing measured it: the way to the server and
	// back, the connector, the engine's reading and writing.
	DefaultOverhead = 100 * time.Millisecond
	// MinThink is the least think worth asking an engine for: below it, the
	// request and its answer alone would hardly fit, and the plan is the
	// panic mode (unless the caller's cap is smaller still: a user's cap).
	MinThink = 50 * time.Millisecond
	// SolveShares is how many shares of the spare time the endgame takes:
	// one, the exact solve, which makes the moves after it nearly free. In
	// the solve window every move may aim at the whole spare time (within
	// the Limit's three quarters of it): what a move leaves, the next
	// plans with.
	SolveShares = 1
	// DefaultThink is the budget of a request whose clock is unknown and
	// that has no cap (a request made off the API).
	DefaultThink = 10 * time.Second
	// QuickFloor is the part of the clock that the quick moves of the
	// panic mode never think into: with the overhead of every own move
	// left, it is what the panic mode keeps (the spec's 0.75 s is the
	// --engine protocol's margin; the server takes a leg only at zero).
	QuickFloor = 250 * time.Millisecond
	// minQuick is the least quick think worth a search: under it the
	// quick move is one ply.
	minQuick = time.Millisecond
)

// solveAt returns the empties at which the engines solve exactly at
// FlipSight's clocks: 20 on 8×8 (the built-in engine's exact solve of 20
// empties costs about 1.5 s on one core), 18 on 10×10 (in grand at 60 s
// the built-in engine's first exact solve came at 18–19 empties in 1.9–2.8 s,
// docs/measurements/2026-12-07-grand-solve-point.md). Placed too low, it
// keeps shares for midgame moves the solve makes free: they end the leg
// unspent.
func solveAt(size int) int {
	if size == 10 {
		return 18
	}
	return 20
}

// Moves is the mover's own moves left in a leg, this one included.
type Moves struct {
	// Own counts every own move left: half the empty playable squares,
	// rounded up, plus one for the passes that can give the mover two moves
	// in a row; in reversi never more than the discs the mover has left to
	// place. It sizes the reserve.
	Own int
	// Search counts those that share the spare time: the own moves before
	// the endgame solve, plus SolveShares; never more than Own.
	Search int
}

// Count returns the mover's moves left in pos: its playable empties (an
// octagon's 88 squares less its discs), and in reversi the discs the mover
// may still place (32 each).
func Count(pos othello.Position) Moves {
	cap := -1
	if pos.Mode == othello.Reversi {
		cap = max(0, othello.ReversiCap-pos.Placed.Of(pos.Turn))
	}
	return countEmpties(pos.Empties().Count(), pos.Size(), cap)
}

// CountEmpties returns the moves left for a leg of the given board size
// (8 or 10) with empties empty playable squares, for a position the caller
// could not read (the mode is unknown: no reversi cap).
func CountEmpties(empties, size int) Moves { return countEmpties(empties, size, -1) }

func countEmpties(empties, size, discsLeft int) Moves {
	empties = max(empties, 0)
	own := (empties+1)/2 + 1
	search := max(0, (empties-solveAt(size)+1)/2) + SolveShares
	if discsLeft >= 0 {
		own = min(own, discsLeft+1)
		search = min(search, discsLeft+1)
	}
	own = max(own, 1)
	return Moves{Own: own, Search: max(1, min(search, own))}
}

// Clock is what the mover's clock allows.
type Clock struct {
	// Remaining is the mover's clock (0 or less: unknown).
	Remaining time.Duration
	// Cap is the most one move may take: --max-think-seconds, or a budget
	// already planned for this move (0: none).
	Cap time.Duration
	// Overhead is the measured per-move cost besides the think
	// (DefaultOverhead when 0).
	Overhead time.Duration
}

// Move is the plan for one move.
type Move struct {
	// Target is the think: the time the engine aims to search.
	Target time.Duration
	// Limit is the budget: the most the move may take. 0 is the panic
	// mode: answer at once with the quick move.
	Limit time.Duration
	// Spare is the clock the plan shared out: the remaining time less the
	// reserve (for the move log).
	Spare time.Duration
	// Quick is the think of a move the engine is not asked for or could
	// not make — the panic mode's, a fallback's after the engine failed —
	// made by a search in the caller's process that answers at once (the
	// built-in engine): in the panic mode, what the clock affords above
	// QuickFloor and the overhead of every own move left, halved for each
	// of them (see quickThink); otherwise the think, up to MinThink. Never
	// more than MinThink or the cap; 0 (under a millisecond): one ply.
	Quick time.Duration
}

// Reserve is the part of the clock no think may use: the spec's 0.75 s
// once, and half again the per-move overhead for each own move
// left (the estimate lags a machine that is getting slower).
func Reserve(m Moves, overhead time.Duration) time.Duration {
	if overhead <= 0 {
		overhead = DefaultOverhead
	}
	return engines.SpecMargin + time.Duration(max(m.Own, 1))*overhead*3/2
}

// Plan returns how long the move with m left may think on clock c (see
// the package doc for the rule). With the clock unknown the cap (or
// DefaultThink) is both the think and the budget. Planning again with the
// Limit as the cap never gives a larger Limit.
func Plan(m Moves, c Clock) Move {
	if c.Remaining <= 0 {
		b := c.Cap
		if b <= 0 {
			b = DefaultThink
		}
		return Move{Target: b, Limit: b, Quick: min(b, MinThink)}
	}
	spare := c.Remaining - Reserve(m, c.Overhead)
	if spare <= 0 {
		return Move{Quick: quickThink(m, c)}
	}
	full := engines.SpecBudget(c.Remaining, c.Cap)
	share := spare / time.Duration(max(m.Search, 1))
	limit := min(2*share, spare*3/4, full)
	if limit < MinThink && limit < full {
		// Too little to ask an engine (a smaller cap is the user's).
		return Move{Spare: spare, Quick: quickThink(m, c)}
	}
	target := min(share, limit)
	return Move{Target: target, Limit: limit, Spare: spare, Quick: min(target, MinThink)}
}

// quickThink is the panic mode's quick think: the clock above QuickFloor
// and half again the overhead of each own move left, over twice the own
// moves left, at most MinThink and the cap. A move whose overhead is
// within half again the estimate leaves that part of the clock at least
// what it was less its think, which is half a share of it: the quick
// moves never think into the floor, however many the leg still has, and
// each later one may think a little longer than the one before
// (TestQuickMovesKeepTheFloor).
func quickThink(m Moves, c Clock) time.Duration {
	overheads := Reserve(m, c.Overhead) - engines.SpecMargin // the reserve's per-move part
	own := time.Duration(max(m.Own, 1))
	q := min((c.Remaining-QuickFloor-overheads)/(2*own), MinThink)
	if c.Cap > 0 {
		q = min(q, c.Cap)
	}
	if q < minQuick {
		return 0
	}
	return q
}

// ReplyMargin is what a plan keeps back from a wait that ends the move
// for good — the spec's budget_ms, past which the connector kills an
// --engine engine and the leg is lost on time — for the answer to come
// back in time: a tenth of the wait, at least 200 ms (the writing of the
// answer, and the late stop of a search on a starved machine: at a load
// of 30–40 on two cores, searches planned to the last 25 ms of a 10 s
// budget_ms answered late and lost legs).
func ReplyMargin(wait time.Duration) time.Duration {
	return max(200*time.Millisecond, wait/10)
}

// ForRequest plans the move of req as an engine asked by the bot (or an
// adapter) sees it: the request's Budget is the cap, its Remaining the
// clock, its Overhead the overhead: the same plan as the caller's, whose
// Limit was the Budget.
// A request with a clock but no budget left (Budget 0 or less) gets the
// panic mode.
func ForRequest(req engines.Request) Move {
	if req.Remaining > 0 && req.Budget <= 0 {
		return Move{}
	}
	return Plan(Count(req.Position), Clock{Remaining: req.Remaining, Cap: max(req.Budget, 0), Overhead: req.Overhead})
}
