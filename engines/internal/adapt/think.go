package adapt

import (
	"time"

	"flipbot.dev/flipbot/engines"
)

// Think-time allotment constants.
const (
	minThink = 50 * time.Millisecond
	// endgameEmpties is where the rest of the game is searched to the end
	// quickly, so that a larger share of the clock may be offered.
	endgameEmpties = 14
	// MoveOverhead is the clock each of the mover's remaining moves costs
	// besides the engine's search: the way to the server and back, the
	// engine's reading and writing. It is kept out of the think time.
	MoveOverhead = 100 * time.Millisecond
	// minReserve is the least part of the clock kept back: above the bot's
	// 750 ms safety margin, under which a move is a fallback.
	minReserve = 1500 * time.Millisecond
	// AnswerAllowance is how long past its planned think time an engine
	// may take to answer (to stop its search and write the move) before
	// the adapter gives up on it.
	AnswerAllowance = time.Second
	// DefaultStartup is the default start-up allowance: how long a fresh
	// engine process may take to load (Egaroucid's stock build takes 5.3 s
	// on the build VM) before its first answer is given up.
	DefaultStartup = 8 * time.Second
	// MaxStartup is how long a new process may go on loading across
	// moves (each waiting at most its start-up allowance) before it is
	// taken for hung and replaced.
	MaxStartup = 2 * time.Minute
)

// ThinkTime allots the time an engine should search for req, from the
// mover's clock: a reserve is kept (10 s above 60 s left, 2 s above 10 s,
// then a tenth but at least 1.5 s) plus MoveOverhead for each of the
// mover's remaining moves; the rest is shared among the mover's remaining
// moves less four (the last ones are solved fast), or halved in the endgame
// (each move takes at most half of what is left, so the clock never runs
// into the reserve); the result never exceeds the budget less margin (the
// time to stop the search and read the answer). At any clock this keeps a
// leg out of the bot's fallback territory (less than 750 ms left).
func ThinkTime(req engines.Request, margin time.Duration) time.Duration {
	budget := Budget(req)
	remaining := req.Remaining
	if remaining <= 0 {
		remaining = budget
	}
	empties := Empties(req)
	own := (empties + 1) / 2
	usable := remaining - Reserve(remaining) - time.Duration(own)*MoveOverhead
	div := own - 4
	if empties <= endgameEmpties || div < 2 {
		div = 2
	}
	think := usable / time.Duration(div)
	if ceiling := budget - margin; think > ceiling {
		think = ceiling
	}
	if think < minThink {
		think = min(minThink, budget/2)
	}
	return think
}

// Reserve is the part of the clock kept back from an engine's own time
// management: 10 s above 60 s left, 2 s above 10 s, a tenth (at least
// 1.5 s) below.
func Reserve(remaining time.Duration) time.Duration {
	switch {
	case remaining > 60*time.Second:
		return 10 * time.Second
	case remaining > 10*time.Second:
		return 2 * time.Second
	default:
		return max(remaining/10, minReserve)
	}
}

// Empties returns the number of empty playable squares of req's position.
func Empties(req engines.Request) int {
	pos := req.Position
	return pos.Mode.Squares() - len(pos.Mode.BlockedSquares()) - pos.Black.Count() - pos.White.Count()
}

// AnswerBy returns the time to give up waiting for an answer that the
// engine was asked to think for think, from sent: think plus
// AnswerAllowance, never past the request's budget from start.
func AnswerBy(start, sent time.Time, req engines.Request, think time.Duration) time.Time {
	return minTime(sent.Add(think+AnswerAllowance), start.Add(Budget(req)))
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
