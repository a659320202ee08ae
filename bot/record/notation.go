package record

import (
	"fmt"
	"strconv"
)

// The notation every view of a game uses (the appliance's replay and
// games pages, the analysis, `flipbot games show` and `list`, GGF); the
// package comment's "Notation" says why.

// MoveLabel returns how a move is named: its ply and its square, "19. b1"
// (square "pass" for a pass).
func MoveLabel(ply int, square string) string {
	return strconv.Itoa(ply) + ". " + square
}

// NoMistake is what a side's worst move reads as when it lost less than an
// inaccuracy: there is no mistake to show.
const NoMistake = "no mistake"

// Shown reports whether w is a move worth showing as a side's worst: a
// counted move that lost at least an inaccuracy. A side whose worst move
// is its best (ClassBest) made no mistake.
func (w Worst) Shown() bool {
	return w.Ply > 0 && LossClass(w.Loss) != ClassBest
}

// String returns w as the analysis shows it: "19. b1 −6.0 (mistake)",
// NoMistake when it lost less than an inaccuracy, "-" when no move of the
// side was counted.
func (w Worst) String() string {
	switch {
	case w.Ply == 0:
		return "-"
	case !w.Shown():
		return NoMistake
	}
	return fmt.Sprintf("%s −%.1f (%s)", MoveLabel(w.Ply, w.Square), w.Loss, LossClass(w.Loss))
}

// DiscsText returns a leg's discs as every view shows them: black's
// first, with the bot's colour when it played one, "25–0 (bot black)";
// "25–0" when neither side was the bot (myColor 0).
func DiscsText(discs [2]int, myColor int) string {
	s := fmt.Sprintf("%d–%d", discs[0], discs[1])
	switch myColor {
	case 1:
		s += " (bot black)"
	case 2:
		s += " (bot white)"
	}
	return s
}
