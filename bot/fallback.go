package bot

import (
	"context"
	"slices"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// quickGrace is how long past its think the bot waits for the quick
// engine's answer before it plays its one-ply move instead (a starved
// machine scheduling the search's stop late).
const quickGrace = 10 * time.Millisecond

// fallbackMove is the move the bot plays when its engine is not asked (the
// clock plan's panic mode) or failed: the Engines.Quick search for the
// quick think of the plan made again on the clock left now (clk: the
// move's clock as choose had it), or the one-ply quickMove when there is
// no quick engine, no position, no time to think, or no legal answer
// within the think and quickGrace (task goroutine). res is the search's
// result when it played; took is how long the bot waited for the search,
// which is think time, not overhead (moveOverhead).
func (b *Bot) fallbackMove(t *moveTask, j moveJob, pos *othello.Position, legal []int, clk engines.Request) (mv int, res engines.Result, took time.Duration) {
	mv, _ = quickMove(pos, legal, nil)
	q := b.opts.Engine.Quick
	if q == nil || pos == nil || t.ctx.Err() != nil {
		return mv, engines.Result{}, 0
	}
	remaining, _ := clk.ClockAt(time.Now()) // clk.At is the system clock's
	plan, _ := planMove(pos, j.leg.Board, j.size, remaining, clk.Cap, clk.Overhead)
	think := plan.Quick
	if think <= 0 {
		return mv, engines.Result{}, 0
	}
	start := b.clock.Now()
	a, got := b.askQuick(t, q, *pos, think)
	took = b.clock.Now().Sub(start)
	if got != answered || a.err != nil || !slices.Contains(legal, a.res.Move) {
		return mv, engines.Result{}, took
	}
	return a.res.Move, a.res, took
}

// askQuick asks q for a move in pos searched for think, and waits for it
// until think and quickGrace have passed or the leg changes (task
// goroutine).
func (b *Bot) askQuick(t *moveTask, q engines.QuickMover, pos othello.Position, think time.Duration) (engineAnswer, awaitResult) {
	ctx, cancel := context.WithTimeout(t.ctx, think)
	defer cancel()
	ch := make(chan engineAnswer, 1)
	go func() {
		r, err := q.QuickMove(ctx, pos, think)
		ch <- engineAnswer{r, err}
	}()
	timer := b.clock.NewTimer(think + quickGrace)
	defer timer.Stop()
	return awaitAnswer(t.ctx.Done(), ch, timer.C())
}

// quickMove picks a move without an engine, in well under a millisecond:
// among the server's legal moves not in skip, the one that leaves the
// opponent fewest replies, with corners first (last in anti). Without a
// usable position it takes the first legal move not in skip. It returns
// false when every legal move is in skip.
func quickMove(pos *othello.Position, legal []int, skip map[int]bool) (int, bool) {
	best, bestScore, found := 0, 0, false
	for _, mv := range legal {
		if skip[mv] {
			continue
		}
		score := 0
		if pos != nil && (mv < 0 || mv >= pos.Size()*pos.Size()) {
			continue // not a square of this board
		}
		if pos != nil {
			next, err := pos.Play(mv)
			if err != nil {
				score = -1 << 20 // the rules disagree: least preferred
			} else {
				score = -next.Legal().Count() * 4
				if isCorner(mv, pos.Size()) {
					if pos.Mode.LessWins() {
						score -= 40
					} else {
						score += 40
					}
				}
			}
		}
		if !found || score > bestScore {
			best, bestScore, found = mv, score, true
		}
	}
	return best, found
}

func isCorner(sq, size int) bool {
	last := size - 1
	r, c := sq/size, sq%size
	return (r == 0 || r == last) && (c == 0 || c == last)
}
