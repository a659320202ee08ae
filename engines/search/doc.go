// Package search is flipbot's built-in engine: an iterative-deepening PVS
// with a shared lockless transposition table and an exact endgame solver,
// for all five FlipSight modes (std, anti, grand, octagon, reversi).
//
// Use one [Engine] for the whole bot: it is safe for concurrent use, its
// searches share the table and a core budget ([Pool]), and identical
// concurrent requests are searched once. [Engine.Move] implements
// engines.Engine (think time from the clock and budget); [Engine.Search]
// searches to a depth, for a time or exactly; [Engine.QuickMove]
// (engines.QuickMover) searches a few milliseconds on one thread for the
// bot's quick moves (the clock plan's panic mode, fallbacks).
//
// # Layout
//
// Both board sizes:
//   - engine.go: the Engine, its options, Move, Search and QuickMove,
//     dispatch by size.
//   - driver.go: the phases of one search (midgame deepening, then an exact
//     solve when the clock allows), once for both sizes through the
//     rootSearch interface; the midgame deepening with aspiration windows
//     (deepen), once for both sizes over each size's root search.
//   - clock.go: the search's limits from the one clock plan
//     (engines/timeplan) and whether a solve fits.
//   - thread.go, job.go: a search's threads, their stop flags and results.
//   - moves.go, pv.go: move lists and root lists (generic over the flips'
//     type), the principal variation.
//   - table.go: the transposition table; table_linux.go asks for huge pages
//     for it (table_other.go: nothing elsewhere).
//   - probcut.go, probcut_pattern.go, probcut_baseline.go: Multi-ProbCut
//     and the generated fits for the trained and the hand-made evaluation.
//   - endcut.go, probcut_end.go: the selective endgame (Multi-ProbCut
//     inside the exact solver, Edax's rising selectivity levels) and the
//     generated fits.
//   - measure.go: what the calibration measures (noisy games, fixed-depth
//     and exact values); the fitting and the Go tables it writes are
//     engines/search/calib's, run by `flipengine probcut`.
//   - pool.go, flight.go: the core budget (moves before ponders), single
//     flight of identical requests.
//   - ponder.go: pondering on the opponent's time ([Engine.Ponder],
//     engines.Ponderer), its turns and its hit/miss counts ([Engine.Stats]).
//   - obf.go, benchpos.go: test positions.
//
// Per board size, one file per phase (8×8 on uint64, 10×10 on othello.Bits):
//
//	board      board8.go   board10.go   masks, flips, parity order
//	midgame    mid8.go     mid10.go     PVS, Multi-ProbCut, table
//	exact      end8.go     end10.go     the solver
//	root       root8.go    root10.go    iterative deepening, root solves, rootSearch
//	8×8 only   last8.go (the last one to four empties), cap8.go (reversi's 32-disc cap),
//	           ybwc.go (threads sharing an exact solve by YBWC)
//
// Only the driver is shared between the sizes through an interface: it runs
// a few times per search. The node functions (mid8, solve8, solveShallow,
// lastScore8, mid10, solve10…) stay written out per size on the board's own
// type, without interfaces or type parameters in their recursion; the
// generic move and root lists are instantiated per size at compile time.
// The algorithms are cited where implemented: PVS in mid8.go, Edax's
// endgame techniques in end8.go and last8.go, YBWC in ybwc.go,
// Multi-ProbCut in probcut.go.
//
// # Names
//
// The same in every file: a position is p, o, the discs of the side to move
// and of its opponent, in that order. The position after a move is nextP,
// nextO in the same order: nextP the opponent, now to move, and nextO the
// side that moved (play10 returns them so). The 8×8 code computes nextO :=
// p|f|bit before nextP := o&^f: in that order the compiler emits the same
// instructions as for the mover-first pair the code had before. discsP and discsO count discs; pl and ol are the discs p and o
// may still place (reversi's cap, else capsFree); n is the number of empty
// squares.
//
// # Imports
//
// The package imports the standard library and, of flipbot, only engines
// (the Engine interface it implements), engines/eval (the evaluations),
// engines/othello (the rules and boards) and engines/timeplan (the one
// clock plan). Its tests may also use testify.
// Nothing else in flipbot is imported here: the bot, the appliance and the
// commands import search, not the other way round.
package search
