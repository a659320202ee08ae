package othello

import "math/rand/v2"

// RandomOpening returns a random 12-disc start of mode as FlipSight makes
// them (and the arena, and self-play training): the initial four and 8
// random moves (reversi: 12 random placements from the empty board, the
// centre four first), and the squares played in order. Each move is drawn
// uniformly from the legal moves with one rng.IntN; a pass, when the side
// to move has none, is played without a draw and not counted. A walk that
// ends the game, or leaves white to move or black without a legal move, is
// thrown away and walked again, so the start has black to move with a
// move. The same rng state gives the same start.
func RandomOpening(mode Mode, rng *rand.Rand) (Position, []int) {
	want := 8
	if mode == Reversi {
		want = 12
	}
	for {
		pos := New(mode)
		moves := make([]int, 0, want)
		ok := true
		for len(moves) < want {
			legal := pos.LegalMoves()
			if len(legal) == 0 {
				if pos.GameOver() {
					ok = false
					break
				}
				pos, _ = pos.Play(Pass)
				continue
			}
			mv := legal[rng.IntN(len(legal))]
			pos, _ = pos.Play(mv)
			moves = append(moves, mv)
		}
		if ok && pos.Turn == Black && !pos.Legal().IsZero() {
			return pos, moves
		}
	}
}
