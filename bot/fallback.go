package bot

import "flipbot.dev/flipbot/engines/othello"

// quickMove picks a move without an engine, in well under a millisecond:
// among the server's legal moves not in skip, the one that leaves the
// opponent fewest replies, with corners first (last in anti). Without a
// usable position it takes the first legal move not in skip. It returns
// false when every legal move is in skip.
func quickMove(pos *othello.Position, legal []int, skip map[int]bool) (int, bool) {
	best, bestScore, found := 0, 0, false
	for _, mv := range legal {
		if skip[mv] {
			continue
		}
		score := 0
		if pos != nil && (mv < 0 || mv >= pos.Size()*pos.Size()) {
			continue // not a square of this board
		}
		if pos != nil {
			next, err := pos.Play(mv)
			if err != nil {
				score = -1 << 20 // the rules disagree: least preferred
			} else {
				score = -next.Legal().Count() * 4
				if isCorner(mv, pos.Size()) {
					if pos.Mode.LessWins() {
						score -= 40
					} else {
						score += 40
					}
				}
			}
		}
		if !found || score > bestScore {
			best, bestScore, found = mv, score, true
		}
	}
	return best, found
}

func isCorner(sq, size int) bool {
	last := size - 1
	r, c := sq/size, sq%size
	return (r == 0 || r == last) && (c == 0 || c == last)
}
