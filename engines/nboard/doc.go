// Package nboard is the client side of the NBoard protocol (the
// connector's `--nboard CMD` option, also used for Edax).
//
// Lifetime: create one [Engine] per leg with [New]; it plays std only. The
// process starts at [Engine.Start] (the bot calls it when it accepts a
// match) or at the first Move, with `nboard <version>` and `set depth N`;
// its first pong ends the start-up. A move made before then waits for it
// until half a second (adapt.ReadyMargin) before its budget ends, at most
// the start-up allowance (Options.Startup); if the engine is not
// ready by then, Move returns an error wrapping engines.ErrNotReady and the
// process goes on loading for a later move (the caller plays a fallback
// and keeps the engine; one still loading after adapt.MaxStartup is
// replaced). A move that waited plans its think time on what is left of
// its clock and budget. Each move sends `ping N` (and waits for `pong N`, so
// that nothing left from an earlier search is taken for this answer), then
// `set game <GGF>` with the current position (FlipSight's games start from
// random positions, so the GGF carries the board in BO[]) and `go`, and
// reads the answer `=== F5/eval/time` or, from Edax, `=== f5 0.00 0.0`; a
// pass is `PA` or `pa`. The eval is the Result's Score, `nodestats` its
// Nodes. With Options.Hint the move is asked for with `hint 1` and read
// from `search PV EVAL 0 DEPTH`, which carries the depth too (Edax). At
// the think time (or just before the budget) the search is stopped with a
// ping; with a think time Move gives up AnswerAllowance after it, else at
// the budget; an engine that does not answer the next ping in time is
// killed and started again.
//
// Package engines/ggf reads and writes the GGF games that `set game`
// carries.
//
// Files: engine.go ([Engine], [New], [Options]), line.go (the engine's
// lines: [ParseLine]).
//
// It may import engines, engines/othello, engines/ggf, engines/proc (the
// process) and engines/internal/adapt (what the adapters share).
package nboard
