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
)

// ThinkTime allots the time an engine should search for req, from the
// mover's clock: a reserve is kept (10 s above 60 s left, 2 s above 10 s,
// a tenth below), the rest is shared among the mover's remaining moves
// less four (the last ones are solved fast), or halved in the endgame; the
// result never exceeds the budget less margin (the time to stop the search
// and read the answer).
func ThinkTime(req engines.Request, margin time.Duration) time.Duration {
	budget := Budget(req)
	remaining := req.Remaining
	if remaining <= 0 {
		remaining = budget
	}
	empties := Empties(req)
	reserve := Reserve(remaining)
	div := (empties+1)/2 - 4
	if empties <= endgameEmpties || div < 2 {
		div = 2
	}
	think := (remaining - reserve) / time.Duration(div)
	if ceiling := budget - margin; think > ceiling {
		think = ceiling
	}
	if think < minThink {
		think = min(minThink, budget/2)
	}
	return think
}

// Reserve is the part of the clock kept back from an engine's own time
// management: 10 s above 60 s left, 2 s above 10 s, a tenth below.
func Reserve(remaining time.Duration) time.Duration {
	switch {
	case remaining > 60*time.Second:
		return 10 * time.Second
	case remaining > 10*time.Second:
		return 2 * time.Second
	default:
		return remaining / 10
	}
}

// Empties returns the number of empty playable squares of req's position.
func Empties(req engines.Request) int {
	pos := req.Position
	return pos.Mode.Squares() - len(pos.Mode.BlockedSquares()) - pos.Black.Count() - pos.White.Count()
}
