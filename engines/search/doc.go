// Package search is flipbot's built-in engine: an iterative-deepening PVS
// with a shared lockless transposition table and an exact endgame solver,
// for all five FlipSight modes (std, anti, grand, octagon, reversi).
//
// Use one [Engine] for the whole bot: it is safe for concurrent use, its
// searches share the table and a core budget ([Pool]), and identical
// concurrent requests are searched once. [Engine.Move] implements
// engines.Engine (think time from the clock and budget); [Engine.Search]
// searches to a depth, for a time or exactly.
//
// Layout: engine.go (the Engine, dispatch by board size), driver.go (the
// phases of a search, midgame then exact, for both sizes), clock.go (time
// allocation), thread.go and job.go (a search's threads and results),
// moves.go and pv.go (move lists and the principal variation of both
// sizes); per board size, board8.go and board10.go (masks, flips, parity
// order), mid8.go and mid10.go (midgame search), end8.go and end10.go
// (exact solver), root8.go and root10.go (iterative deepening and root
// solves); last8.go (the last empty by flip counting), cap8.go (classic
// reversi's 32-disc cap), ybwc.go (threads sharing an exact solve by YBWC),
// probcut.go, calibrate.go and the generated probcut_pattern.go and
// probcut_baseline.go (Multi-ProbCut and its fits for the trained and the
// hand-made evaluation), table.go (transposition table), pool.go and
// flight.go (core budget, single flight), obf.go and benchpos.go (test
// positions).
//
// Names, the same in every file: a position is p, o, the discs of the side
// to move and of its opponent, in that order. The position after a move is
// nextP, nextO in the same order: nextP the opponent, now to move, and
// nextO the side that moved (play10 returns them so; the 8×8 code writes
// o&^f, p|f|bit). discsP and discsO count discs; pl and ol are the discs p
// and o may still place (reversi's cap, else capsFree); n is the number of
// empty squares.
package search
