// Package othello holds the rules of the five FlipSight game modes on
// bitboards: std and anti on 8×8, grand and octagon on 10×10 (octagon with
// its 12 blocked corner squares), and classic reversi (an empty start, the
// centre four placed first without flips, at most 32 discs per colour).
//
// Squares are numbered as the FlipSight API numbers them: row*size + column,
// zero-based, a1 = 0. A set of squares is a [Bits] (128 bits, so that one type
// serves both board sizes); the hot paths have size-specific forms on plain
// words: [Legal8] and [Flips8] for 8×8, [Legal10] and [Flips10] for 10×10.
//
// A [Position] is a whole game state (mode, discs, side to move, discs placed
// per colour). It is a small value: methods that change it return a new one.
// Conversions from and to the API's engine request ([EngineRequest]) and leg
// objects check every field and return errors, never panic.
//
// Files: mode.go ([Mode], [Color], [Placed]), bits.go ([Bits]), moves8.go
// and moves10.go (move generation and flips per board size), position.go
// ([Position]), notation.go (square names, moves as text), request.go
// ([EngineRequest], [Leg]), opening.go ([RandomOpening]), perft.go
// ([Perft]).
//
// It imports the standard library only, nothing of the module: it is the
// bottom of the engines, and everything that knows the rules imports it.
package othello
