package search

import (
	"fmt"

	"flipbot.dev/flipbot/engines/othello"
)

// BenchPosition is one position of the fixed benchmark set.
type BenchPosition struct {
	// Name says the mode and phase, e.g. "std-mid".
	Name string
	// Position is the position to search.
	Position othello.Position
	// Endgame marks positions meant for an exact solve; the others are
	// midgame positions for a timed search.
	Endgame bool
}

// benchEmpties is the number of empties of the benchmark positions per mode
// and phase.
var benchEmpties = map[othello.Mode][2]int{
	othello.Std:     {44, 18},
	othello.Anti:    {44, 18},
	othello.Reversi: {44, 18},
	othello.Grand:   {76, 16},
	othello.Octagon: {64, 16},
}

// BenchPositions returns the fixed benchmark set: one midgame and one endgame
// position per mode, reached from the mode's start by a fixed pseudo-random
// game, so that every run searches the same positions.
func BenchPositions() []BenchPosition {
	var out []BenchPosition
	for _, m := range othello.AllModes() {
		for phase, empties := range benchEmpties[m] {
			name := fmt.Sprintf("%s-%s", m, [2]string{"mid", "end"}[phase])
			out = append(out, BenchPosition{Name: name, Position: randomGame(m, empties, uint64(m)*977+uint64(phase)*131+1), Endgame: phase == 1})
		}
	}
	return out
}

// randomGame plays pseudo-random legal moves from mode's start until
// empties squares are left and the side to move has at least two moves,
// trying further seeds when a game ends early.
func randomGame(mode othello.Mode, empties int, seed uint64) othello.Position {
	for ; ; seed++ {
		x := seed*0x9E3779B97F4A7C15 + 1
		pos := othello.New(mode)
		for !pos.GameOver() {
			legal := pos.LegalMoves()
			if pos.Empties().Count() <= empties {
				if len(legal) >= 2 {
					return pos
				}
				break
			}
			mv := othello.Pass
			if len(legal) > 0 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				mv = legal[x%uint64(len(legal))]
			}
			next, err := pos.Play(mv)
			if err != nil {
				break
			}
			pos = next
		}
	}
}
