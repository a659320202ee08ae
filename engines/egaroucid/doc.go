// Package egaroucid runs Egaroucid for Console (7.8; the connector's
// `--egaroucid PATH` option).
//
// Lifetime: create one [Engine] per leg with [New]; it plays std only. The
// program runs with -quiet -noboard in its own directory (so that its
// resources/ folder is found). For each move the adapter sends
// `setboard <64 squares and the side to move>`, `settime <X|O> <seconds>`
// and `go`, and reads the answer ("f5", "ps" for a pass), stripping the
// "> " prompts that precede it. The seconds given to settime are the
// mover's clock less a reserve, lowered so that Egaroucid's own share of it
// for this move stays under the budget. When the budget ends first, the
// process is killed (Move returns an error) and a new one is started on
// the next move.
package egaroucid
