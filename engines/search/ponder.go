package search

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

// Pondering: thinking on the opponent's time. After its own move the bot
// asks the engine to ponder the position the opponent is to move in; the
// engine searches the position after the opponent's expected reply (the
// principal variation of its own move, or a shallow search's guess) with
// the pool's idle cores, filling the shared transposition table, until the
// opponent has moved. When the opponent plays the expected reply (a ponder
// hit), the move's iterative deepening finds every iteration the ponder
// finished in the table and goes on deeper in the same think time; a miss
// leaves entries that nothing reads (table space, replaced by depth).
// Edax's `ponder` and Egaroucid's `-ponder` do the same on the expected
// reply; here the idle cores are shared fairly between the ponders of
// several legs, and a move's search preempts them (Pool).
//
// Fairness: the ponder searches of one engine take turns (ponderQueue, first
// come first served), each turn a slice of ponderSlice while another ponder
// waits (unbounded when none does), using every idle core by Lazy SMP;
// the next slice of the same position starts from the table, so that a
// slice loses little besides its unfinished iteration's root.

const (
	// ponderSlice is a ponder search's turn while another one waits.
	ponderSlice = 100 * time.Millisecond
	// ponderHorizon is the time a ponder search assumes it has when it
	// estimates whether an exact solve fits (solveFits): the opponent's
	// think time is unknown, a few seconds is typical.
	ponderHorizon = 4 * time.Second
	// guessDepth is the depth of the search that guesses the opponent's
	// reply when the request has none.
	guessDepth = 6
	// ponderKept is how many pondered positions are remembered for the
	// hit or miss count (a few per leg).
	ponderKept = 32
)

// Stats counts what an engine did since it was made.
type Stats struct {
	// Ponders counts the positions pondered (one per Ponder call that
	// searched); PonderNodes their nodes.
	Ponders, PonderNodes uint64
	// PonderHits counts the moves asked in a pondered position (the
	// opponent played the expected reply); PonderMisses the moves asked
	// after another reply to a pondered position.
	PonderHits, PonderMisses uint64
}

// Stats returns the engine's counts.
func (e *Engine) Stats() Stats {
	e.ponders.mu.Lock()
	defer e.ponders.mu.Unlock()
	return e.ponders.stats
}

// ponders is the engine's pondering state: the turn queue, the positions
// pondered lately and the counts.
type ponders struct {
	queue ponderQueue

	mu    sync.Mutex
	kept  []*pondered
	stats Stats
}

// pondered is one position pondered: root with the opponent to move, and
// target, root after the expected reply; depth and exact are how far the
// ponder searched target.
type pondered struct {
	root, target othello.Position
	depth        int
	exact        bool
	nodes        uint64
	// live is the turn searching target now (nil between turns): a move
	// asked before the turn has ended reads its depth there.
	live *job
}

// Ponder implements [engines.Ponderer]: it searches the position after the
// opponent's expected reply to req.Position with the pool's idle cores
// until ctx is done. A move's search that starts meanwhile stops it and
// takes its cores; it goes on when cores are idle again.
func (e *Engine) Ponder(ctx context.Context, req engines.PonderRequest) error {
	root := req.Position
	if !e.Supports(root.Mode) {
		return fmt.Errorf("ponder: mode %v not supported", root.Mode)
	}
	if root.GameOver() {
		return nil
	}
	start := time.Now()
	var nodes uint64
	reply, guessed := expectedReply(root, req.Expected), false
	if reply == noReply {
		// Guess the reply by a shallow search of the opponent's position;
		// its entries serve the ponder below.
		guessed = true
		for reply == noReply {
			out, finished, err := e.ponderSlice(ctx, root, searchPlan{soft: 1 << 62, maxDepth: guessDepth}, nil)
			if err != nil {
				return nil
			}
			nodes += out.nodes
			if finished && out.ok {
				reply = out.move
			}
		}
	}
	target, err := root.Play(reply)
	if err != nil {
		return fmt.Errorf("ponder: expected reply: %w", err)
	}
	if target.Legal().Count() <= 1 {
		return nil // the move after it is played without a search
	}
	p := e.ponders.add(root, target)
	plan := searchPlan{soft: 1 << 62, hard: ponderHorizon, trySolve: true}
	turns := 0
	for ctx.Err() == nil {
		out, finished, err := e.ponderSlice(ctx, target, plan, p)
		if err != nil {
			break
		}
		turns++
		nodes += out.nodes
		e.ponders.update(p, out)
		if finished {
			// Searched to the end: nothing more to learn here.
			<-ctx.Done()
			break
		}
	}
	e.ponders.mu.Lock()
	e.ponders.stats.PonderNodes += nodes
	e.ponders.mu.Unlock()
	e.log.Debug("ponder", "mode", root.Mode, "reply", othello.SquareName(reply, root.Size()), "guessed", guessed,
		"depth", p.depth, "exact", p.exact, "nodes", nodes, "turns", turns, "ms", time.Since(start).Milliseconds())
	return nil
}

// noReply means no expected reply is known.
const noReply = -2

// expectedReply returns the opponent's reply to expect in root: a pass
// when it has no move, the first of expected when legal, else noReply.
func expectedReply(root othello.Position, expected []int) int {
	legal := root.Legal()
	switch {
	case legal.IsZero():
		return othello.Pass
	case legal.Count() == 1:
		return legal.First()
	case len(expected) > 0 && expected[0] >= 0 && legal.Has(expected[0]):
		return expected[0]
	}
	return noReply
}

// ponderSlice runs one turn of a ponder search of pos: it waits for the
// ponders' turn and for idle cores, and searches until the plan is done
// (finished), ctx ends, a move's search needs the cores, or another ponder
// has waited a slice. The error is ctx's. The turn is p's live one (p may
// be nil).
func (e *Engine) ponderSlice(ctx context.Context, pos othello.Position, plan searchPlan, p *pondered) (out outcomeStats, finished bool, err error) {
	if err := e.ponders.queue.lock(ctx); err != nil {
		return out, false, err
	}
	defer e.ponders.queue.unlock()
	j := &job{start: time.Now(), soft: plan.soft}
	hold, err := e.pool.acquirePonder(ctx, e.threads, func() { j.stop.Store(true) })
	if err != nil {
		return out, false, err
	}
	defer e.pool.releasePonder(hold)
	// One watcher stops the turn when ctx ends or another ponder waits;
	// the slice returns only after it has gone, so no goroutine outlives
	// its ponder.
	done := make(chan struct{})
	var watcher sync.WaitGroup
	defer watcher.Wait()
	defer close(done)
	watcher.Go(func() {
		tick := time.NewTicker(ponderSlice)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				j.stop.Store(true)
				return
			case <-tick.C:
				if e.ponders.queue.waiting() > 0 {
					j.stop.Store(true)
					return
				}
			}
		}
	})
	if p != nil {
		e.ponders.setLive(p, j)
		defer e.ponders.setLive(p, nil)
	}
	j.start = time.Now()
	out = e.run(j, pos, plan, hold.n)
	return out, !j.stop.Load(), nil
}

// add remembers a position about to be pondered.
func (ps *ponders) add(root, target othello.Position) *pondered {
	p := &pondered{root: sameKey(root), target: sameKey(target)}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.stats.Ponders++
	if len(ps.kept) >= ponderKept {
		ps.kept = slices.Delete(ps.kept, 0, 1)
	}
	ps.kept = append(ps.kept, p)
	return p
}

// setLive records the turn searching p (nil: none).
func (ps *ponders) setLive(p *pondered, j *job) {
	ps.mu.Lock()
	p.live = j
	ps.mu.Unlock()
}

// snapshot returns p with the depth of its live turn counted (ps.mu held).
func (p *pondered) snapshot() pondered {
	s := *p
	if p.live != nil {
		if o := p.live.result(); o.ok && (o.exact || o.depth > s.depth) {
			s.depth, s.exact = o.depth, s.exact || o.exact
		}
	}
	s.live = nil
	return s
}

// update records how far a ponder turn searched.
func (ps *ponders) update(p *pondered, out outcomeStats) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p.nodes += out.nodes
	if out.ok && (out.exact || out.depth > p.depth) {
		p.depth, p.exact = out.depth, p.exact || out.exact
	}
}

// settlePonder counts a move asked in pos as a ponder hit (pos was
// pondered) or miss (pos follows another reply to a pondered position) and
// forgets that ponder.
func (e *Engine) settlePonder(pos othello.Position) {
	pos = sameKey(pos)
	ps := &e.ponders
	ps.mu.Lock()
	var (
		hit, miss *pondered
		at        int
	)
	for i, p := range ps.kept {
		if p.target == pos {
			hit, at = p, i
			break
		}
		if miss == nil && follows(p.root, pos) {
			miss, at = p, i
		}
	}
	switch {
	case hit != nil:
		ps.stats.PonderHits++
	case miss != nil:
		ps.stats.PonderMisses++
	default:
		ps.mu.Unlock()
		return
	}
	ps.kept = slices.Delete(ps.kept, at, at+1)
	if hit != nil {
		h := hit.snapshot()
		ps.mu.Unlock()
		e.log.Debug("ponder hit", "mode", pos.Mode, "pondered_depth", h.depth, "pondered_exact", h.exact, "pondered_nodes", h.nodes)
		return
	}
	m := miss.snapshot()
	ps.mu.Unlock()
	e.log.Debug("ponder miss", "mode", pos.Mode, "pondered_depth", m.depth, "pondered_nodes", m.nodes)
}

// follows reports whether pos is root after one of its replies (a pass
// included).
func follows(root, pos othello.Position) bool {
	if pos.Turn != root.Turn.Opponent() {
		return false
	}
	legal := root.Legal()
	if legal.IsZero() {
		next, err := root.Play(othello.Pass)
		return err == nil && sameKey(next) == pos
	}
	for _, mv := range legal.Squares() {
		if next, err := root.Play(mv); err == nil && sameKey(next) == pos {
			return true
		}
	}
	return false
}

// sameKey returns pos without what the search ignores: the placed counts
// outside reversi, which the API may leave at 0 (the server's and Play's
// counts then differ for one position).
func sameKey(pos othello.Position) othello.Position {
	if pos.Mode != othello.Reversi {
		pos.Placed = othello.Placed{}
	}
	return pos
}

// ponderQueue gives the ponder searches of an engine their turns first
// come, first served.
type ponderQueue struct {
	mu      sync.Mutex
	busy    bool
	waiters []chan struct{}
}

// lock waits for the turn; the error is ctx's.
func (q *ponderQueue) lock(ctx context.Context) error {
	q.mu.Lock()
	if !q.busy {
		q.busy = true
		q.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	q.waiters = append(q.waiters, ch)
	q.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		q.mu.Lock()
		if i := slices.Index(q.waiters, ch); i >= 0 {
			q.waiters = slices.Delete(q.waiters, i, i+1)
			q.mu.Unlock()
			return ctx.Err()
		}
		q.mu.Unlock()
		// The turn came meanwhile: pass it on.
		q.unlock()
		return ctx.Err()
	}
}

// unlock ends the turn and hands it to the longest waiter.
func (q *ponderQueue) unlock() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiters) == 0 {
		q.busy = false
		return
	}
	ch := q.waiters[0]
	q.waiters = q.waiters[1:]
	close(ch)
}

// waiting returns the number of ponder searches waiting for their turn.
func (q *ponderQueue) waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiters)
}
