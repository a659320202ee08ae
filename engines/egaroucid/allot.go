package egaroucid

import (
	"math"
	"time"
)

// Allotment models how much of a clock Egaroucid for Console 7.8 gives to
// one move with empties empty squares when told its clock with settime (its
// time_management.hpp): a margin of 0.4 s per own remaining move plus 5 s
// is kept when the clock allows; the rest is shared among weighted
// remaining moves (1.4 per move beyond 15, plus 0.2 beyond 20; 1.2 per move
// beyond 13 when short of time; at least 2); when its node-count model says
// an exact solve fits in 90 % of the rest (or an endgame search in 15 %),
// it allows that much instead; and above 38 empties with more than 40 s
// and a share above 5 s it may add more for a close choice (assumed here). The result is an upper estimate
// used to choose the clock to tell it; it is not exact.
func Allotment(clock time.Duration, empties int) time.Duration {
	moves := float64(empties+1) / 2
	ms := float64(clock.Milliseconds())
	offset := 400*moves + 5000
	short := ms <= offset
	rest := ms
	if !short {
		rest -= offset
	}
	var proc float64
	if short {
		proc = (moves - 13) * 1.2
	} else {
		if moves >= 15 {
			proc += (moves - 15) * 1.4
		}
		if moves >= 20 {
			proc += (moves - 20) * 0.2
		}
	}
	proc = math.Max(2, proc)
	limit := math.Max(1, rest/proc)
	solve, endgame := 0.9*rest, 0.15*rest
	solveDepth := math.Log(solve/1000*7e8/0.6) / 0.75
	endgameDepth := math.Log(endgame/1000*3.5e8/0.05) / 0.62
	switch {
	case float64(empties) <= solveDepth:
		limit = math.Max(limit, solve)
	case float64(empties) <= endgameDepth:
		limit = math.Max(limit, endgame)
	}
	if empties >= 38 && limit > 5000 && !short && rest > 40000 && rest > limit {
		// More time for a close choice (assumed to happen: an upper bound).
		proc2 := 0.0
		if moves >= 15 {
			proc2 += math.Round((moves - 15) * 1.4)
		}
		if moves >= 20 {
			proc2 += math.Round((moves - 20) * 0.2)
		}
		proc2 = math.Max(2, proc2)
		coe := 1.8
		if moves >= 20 {
			coe += 1.8 * (moves - 20) / 10
		}
		limit += math.Min((rest-limit)/proc2*coe, rest/2)
	}
	return time.Duration(limit) * time.Millisecond
}
