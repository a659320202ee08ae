// Package egaroucid runs Egaroucid for Console (7.8; the connector's
// `--egaroucid PATH` option).
//
// Lifetime: create one [Engine] per leg with [New]; it plays std only. The
// program runs with -noboard (and -t, -hash when set) in its own directory
// (so that its resources/ folder is found). [Engine.Start] starts it ahead
// of the first move (the bot does so when it accepts a match): a new
// process is sent `version`, and its answer tells the adapter that the
// start-up (5 s and more with the stock build: it writes its 1.2 GiB of
// tables, then unpacks its evaluation) is over. A move made before then
// waits for it until half a second (adapt.ReadyMargin) before its budget
// ends, at most the start-up allowance; if the process is not ready by
// then, Move returns an
// error wrapping engines.ErrNotReady at once and the process goes on
// loading for the next move (the caller plays a fallback and keeps the
// engine). A process still loading after adapt.MaxStartup is taken for
// hung and replaced. For each move the adapter then sends `setboard <64
// squares and the side to move>`, `settime <X|O> <seconds>` and `go`, and
// reads the row of the answer table (depth@selectivity, move, score, time,
// nodes; "ps" for a pass), stripping the "> " prompts before it; a -quiet
// answer ("f5", "f5 3") is read too.
//
// The seconds given to settime are what this move can afford by the one
// clock plan (engines/timeplan, through adapt.ThinkTime), lowered until Egaroucid's own share of them
// ([Allotment]) fits; a move that waited for the start-up plans them on
// what is left of its clock and budget (adapt.After), so that the wait
// does not make the answer late. The adapter waits for the answer that
// planned share plus adapt.AnswerAllowance; past it the process is killed
// (Move returns an error) and a new one is started on the next move.
//
// Memory: with Options.MemoryShare the adapter reads the process's peak
// resident size (VmHWM) at its first answer and warns, with the fix, when
// it is over the share (a stock 7.8 build takes 1.33 GiB whatever -hash
// says). With Options.RefuseOverShare as well (the appliance) it also
// watches the resident size while the process starts, kills it once it
// passes [OverShareLimit], and refuses Egaroucid from then on: Start and
// Move return an error matching [ErrOverShare], naming what was found and
// how to build the low-memory variant. [Engine.Warm] starts the process and
// waits for its ready answer with that check, so that a caller can check a
// build with one process before it starts more.
//
// Several matches at once: a [Pool] is the engines.Provider of std
// matches: it runs at most a given number of instances (the caller sizes
// them for the device's memory) in the house's one warm pool
// (engines.Pool) and gives them two at a time, one per leg, to each std
// match's session ([Pool.Open] when the match is accepted; the session's
// Close, once, when it ends, gives them back running for the next match);
// a match that comes while every slot is taken, or once Egaroucid is
// refused, plays with the fallback provider's session (the built-in
// engine). [Pool.Check] probes the build before the
// bot goes online (one engine made as the pool makes them, asked for a
// move, closed); [Pool.Probe] checks it with one process up front, kept
// warm; an instance over its memory share refuses Egaroucid for good
// ([Pool.Refuse]).
//
// Files: engine.go ([Engine], [New], [Options], the process's start-up
// and memory checks), answer.go (Egaroucid's lines: [ParseAnswer],
// [BoardString]), allot.go ([Allotment]), pool.go ([Pool]), session.go (a std match's
// session on the pool).
//
// It may import engines, engines/othello, engines/proc (the process),
// engines/timeplan (the clock plan's reserve) and engines/internal/adapt
// (what the adapters share); its tests use the fake
// of engines/egaroucid/egaroucidtest.
package egaroucid
