// Package jsonline is the adapter for engines that speak the spec's JSON
// line protocol (the connector's `--engine CMD` option): the engine is
// started once per match and kept running; for each move it reads one
// request line (the spec's 15-field object, [othello.EngineRequest]) and
// writes one answer line {"move": 19}, {"move": "d3"} or {"move": -1}.
//
// Lifetime: create one [Engine] per match with [New]; both legs of the
// match share its process, one request at a time. An engine that exits
// after an answer is started again for the next move; lines on its stdout
// that are not JSON are skipped; its stderr goes to the logger.
//
// When the engine does not answer within the request's budget (or the
// context ends), Move returns an error and the process is killed, so that a
// late answer can never be taken for the next move's; the next move starts
// a new process. An answer that is not a legal move by the rules is an
// error, never returned as a move.
//
// Files: engine.go ([Engine], [New], [Options]), answer.go
// ([ParseAnswer]).
//
// It may import engines, engines/othello, engines/proc (the process) and
// engines/internal/adapt (what the adapters share).
package jsonline
