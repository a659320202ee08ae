package adapt

import (
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/timeplan"
)

// The allowances around an engine's think.
const (
	// minThink is the least think an engine is asked for while its budget
	// allows it (an engine always answers; the budget decides).
	minThink = 50 * time.Millisecond
	// panicThink is the think asked for when the plan has none to give
	// (its panic mode: the clock is down to the reserve for the moves
	// left): an answer at once.
	panicThink = 10 * time.Millisecond
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

// ThinkTime is the time an engine should search for req: the think of the
// one clock plan (timeplan.ForRequest, the request's Budget as its cap),
// never more than the budget less margin (the time to stop the search and
// read the answer), and at least minThink (10 ms in the plan's panic
// mode), or half the budget when that is less.
func ThinkTime(req engines.Request, margin time.Duration) time.Duration {
	budget := Budget(req)
	p := timeplan.ForRequest(req)
	think := min(p.Target, budget-margin)
	if think < minThink {
		floor := minThink
		if p.Limit == 0 {
			floor = panicThink
		}
		think = min(floor, budget/2)
	}
	return think
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
