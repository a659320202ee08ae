package search

import "flipbot.dev/flipbot/engines/othello"

// pvPos is a position walked by followPV: the one implementation of the
// principal variation for both board sizes.
type pvPos interface {
	// play plays mv for the side to move and hands the turn over.
	play(mv int)
	// canMove reports whether the side to move has a move; pass hands the
	// turn over without one.
	canMove() bool
	pass()
	// legal reports whether mv is a legal move of the side to move.
	legal(mv int) bool
	// key is the position's table key.
	key(t *thread) uint64
}

// followPV follows the table's best moves from the root move first, at
// most maxLen moves, passes included.
func followPV(t *thread, pos pvPos, first, maxLen int) []int {
	pv := []int{first}
	mv := first
	for len(pv) < maxLen {
		pos.play(mv)
		if !pos.canMove() {
			pos.pass()
			if !pos.canMove() {
				break
			}
			pv = append(pv, othello.Pass)
		}
		e, ok := t.tt.probe(pos.key(t))
		if !ok || e.move < 0 || !pos.legal(e.move) {
			break
		}
		mv = e.move
		pv = append(pv, mv)
	}
	return pv
}
