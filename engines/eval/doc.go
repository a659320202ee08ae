// Package eval scores positions for the built-in engine's search, one
// evaluation per game mode behind the [Evaluator8] and [Evaluator10]
// interfaces, so that trained pattern evaluations can replace the hand-made
// baseline ([Baseline8], [Baseline10]) without touching the search.
//
// Scores are for the side to move, in hundredths of a disc ([Disc] = 100),
// and aim at the final disc difference under the mode's scoring: anti's
// evaluation rewards having fewer discs and avoiding stable ones.
//
// Files: doc.go ([Evaluator8], [Evaluator10], [Disc]); baseline8.go,
// baseline10.go, stable8.go (the hand-made evaluations); pattern.go,
// patterneval.go, fast8.go, fast10.go, weights.go (the pattern
// evaluation: its [Layout], [Pattern], the hot scoring paths, [Weights]);
// set.go (a [Set] per mode, the embedded weights, [ByName]).
//
// It may import engines/othello only; engines/search and engines/eval/train
// import it.
package eval

import "flipbot.dev/flipbot/engines/othello"

// Disc is the value of one disc of final difference in evaluation units.
const Disc = 100

// Evaluator8 scores 8×8 positions (std, anti, reversi).
type Evaluator8 interface {
	// Score8 returns the value for the player with discs p against the
	// opponent with discs o, the player to move. pLeft and oLeft are the
	// discs each may still place (reversi's cap; a large number in the
	// other modes).
	Score8(p, o uint64, pLeft, oLeft int) int
}

// Evaluator10 scores 10×10 positions (grand, octagon).
type Evaluator10 interface {
	// Score10 returns the value for the player with discs p against the
	// opponent with discs o, the player to move.
	Score10(p, o othello.Bits) int
}
