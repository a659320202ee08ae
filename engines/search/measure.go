package search

import (
	"context"
	"time"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
)

// What engines/search/calib measures to fit Multi-ProbCut (probcut.go) and
// the selective endgame (endcut.go): positions of a noisy game and their
// values searched on one thread at fixed depths, exactly as the search's
// nodes compute them. The fitting and the Go tables it writes are calib's;
// the fits are read here (probcut_pattern.go, probcut_baseline.go,
// probcut_end.go).

// ProbCutMinDepth is the shallowest search to which Multi-ProbCut applies.
const ProbCutMinDepth = probCutMinDepth

// ProbCutShallow returns the shallow depth that Multi-ProbCut pairs with a
// search of depth d (a fit of Depth d must have this Shallow).
func ProbCutShallow(d int) int { return probCutShallow(d) }

// EndCutMinEmpties is the fewest empties at which the solver tries a cut
// of the selective endgame.
const EndCutMinEmpties = endCutMin

// SolveEmpties returns the number of empties from which a midgame search
// on a board of size (8 or 10) that reaches the end of the game calls the
// exact solver instead: Multi-ProbCut's fits matter above it.
func SolveEmpties(size int) int {
	if size == 10 {
		return midSolve10
	}
	return midSolve
}

// Xorshift advances the xorshift state x by one step and returns it: the
// random numbers of NoisyGame and of the calibration that picks its
// targets.
func Xorshift(x *uint64) uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return *x
}

// NoisyGame plays from mode's start until target empties are left: a random
// legal move one time in four, else the best by one-ply evaluation. It
// fails when the game ends first or the side to move then has fewer than two
// moves. rng is the state of Xorshift, advanced by every random choice.
func (e *Engine) NoisyGame(mode othello.Mode, target int, rng *uint64) (othello.Position, bool) {
	pos := othello.New(mode)
	for pos.Empties().Count() > target {
		if pos.GameOver() {
			return pos, false
		}
		legal := pos.LegalMoves()
		mv := othello.Pass
		switch {
		case len(legal) == 0:
		case Xorshift(rng)%4 == 0 || centreOpen(pos):
			mv = legal[Xorshift(rng)%uint64(len(legal))]
		default:
			mv = e.quickMove(pos)
		}
		next, err := pos.Play(mv)
		if err != nil {
			return pos, false
		}
		pos = next
	}
	return pos, !pos.GameOver() && len(pos.LegalMoves()) >= 2 && !centreOpen(pos)
}

// DepthValues returns the full-window values of pos at depths 1 to
// maxDepth (index = depth), searched on one thread after clearing the
// table, without Multi-ProbCut unless the engine has fits. A search
// that ctx ends early returns values cut short.
func (e *Engine) DepthValues(ctx context.Context, pos othello.Position, maxDepth int) []int {
	e.tt.clear()
	j := &job{start: time.Now(), soft: 1 << 62}
	stopWatch := context.AfterFunc(ctx, func() { j.stop.Store(true) })
	defer stopWatch()
	t := &thread{tt: e.tt, ev8: e.ev8[pos.Mode], ev10: e.ev10[pos.Mode], salt: modeSalt(pos.Mode, false),
		anti: pos.Mode == othello.Anti, blocked: pos.Mode.Blocked(), job: j}
	p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
	pl, ol := placementsLeft(pos)
	v := make([]int, maxDepth+1)
	for d := 1; d <= maxDepth; d++ {
		if pos.Size() == 10 {
			v[d] = t.mid10(p, o, d, -inf, inf, false)
		} else {
			v[d] = t.mid8(p.Lo, o.Lo, pl, ol, d, -inf, inf, false)
		}
	}
	return v
}

// EndValues returns pos's full-window midgame values at depths 1 to
// maxShallow and, last, its exact score times eval.Disc, searched on one
// thread after clearing the table (ok false when ctx ended first).
func (e *Engine) EndValues(ctx context.Context, pos othello.Position, maxShallow int) ([]int, bool) {
	j := &job{start: time.Now(), soft: 1 << 62}
	stopWatch := context.AfterFunc(ctx, func() { j.stop.Store(true) })
	defer stopWatch()
	t := &thread{tt: e.tt, ev8: e.ev8[pos.Mode], salt: modeSalt(pos.Mode, false), mpc: e.mpc[pos.Mode],
		anti: pos.Mode == othello.Anti, job: j}
	p, o := pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
	v := make([]int, maxShallow+2)
	e.tt.clear()
	for d := 1; d <= maxShallow; d++ {
		v[d] = t.mid8(p, o, capsFree, capsFree, d, -inf, inf, false)
	}
	e.tt.clear()
	v[maxShallow+1] = t.solve8(p, o, -65, 65, false) * eval.Disc
	return v, !t.aborted
}
