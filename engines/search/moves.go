package search

import "flipbot.dev/flipbot/engines/othello"

// Move lists of both board sizes, generic over the type of a move's flips
// (uint64 on 8×8, othello.Bits on 10×10): the lists of the midgame search
// and the exact solver, and the root lists of iterative deepening.

// move is a move in a move list: the square, the discs it flips (uint64 on
// 8×8, othello.Bits on 10×10) and its ordering key (higher first).
type move[F uint64 | othello.Bits] struct {
	flips F
	sq    int
	key   int
}

// move8 and move10 are the moves of the two board sizes.
type (
	move8  = move[uint64]
	move10 = move[othello.Bits]
)

// pickBest moves the highest-keyed move of list[i:] to position i.
func pickBest[F uint64 | othello.Bits](list []move[F], i int) {
	b := i
	for j := i + 1; j < len(list); j++ {
		if list[j].key > list[b].key {
			b = j
		}
	}
	list[i], list[b] = list[b], list[i]
}

// rootMoveOf is a move at the root with the score of its last search; F is
// the flips' type of the board size (see move).
type rootMoveOf[F uint64 | othello.Bits] struct {
	sq    int
	flips F
	score int
}

// rootMove8 and rootMove10 are the root moves of the two board sizes.
type (
	rootMove8  = rootMoveOf[uint64]
	rootMove10 = rootMoveOf[othello.Bits]
)

// sortRoot orders root moves by score, best first, keeping the order of
// equal scores (insertion sort: lists are short).
func sortRoot[F uint64 | othello.Bits](list []rootMoveOf[F]) {
	for i := 1; i < len(list); i++ {
		for j := i; j > 0 && list[j].score > list[j-1].score; j-- {
			list[j], list[j-1] = list[j-1], list[j]
		}
	}
}

// rotate turns helper threads' root lists so that they start on different
// moves than the main thread (Lazy SMP diversity).
func rotate[F uint64 | othello.Bits](list []rootMoveOf[F], id int) {
	if id == 0 || len(list) < 3 {
		return
	}
	k := 1 + (id-1)%(len(list)-1)
	rest := append([]rootMoveOf[F](nil), list[1:]...)
	for i := range rest {
		list[1+i] = rest[(i+k-1)%len(rest)]
	}
}
