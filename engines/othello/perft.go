package othello

import "math/bits"

// Perft counts the leaves of the game tree of pos to the given depth with the
// usual convention: a pass is a ply, and a game-over position counts as one
// leaf whatever depth remains. Depth 0 counts pos itself.
func Perft(pos Position, depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	own, opp := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
	switch pos.Mode {
	case Std, Anti:
		return perft8(own.Lo, opp.Lo, depth)
	case Grand, Octagon:
		return perft10(own, opp, pos.Mode.Blocked(), depth)
	}
	return perftSlow(pos, depth)
}

// perft8 is the 8×8 normal-rules perft on (player, opponent) words, counting
// the last ply by population count.
func perft8(p, o uint64, depth int) uint64 {
	moves := Legal8(p, o)
	if moves == 0 {
		if depth == 1 || Legal8(o, p) == 0 {
			return 1
		}
		return perft8(o, p, depth-1)
	}
	if depth == 1 {
		return uint64(bits.OnesCount64(moves))
	}
	var n uint64
	if depth == 2 {
		// The last two plies inline: count each child's moves without a call.
		for ; moves != 0; moves &= moves - 1 {
			sq := bits.TrailingZeros64(moves)
			f := Flips8(p, o, sq) | 1<<uint(sq)
			if c := Legal8(o&^f, p|f); c != 0 {
				n += uint64(bits.OnesCount64(c))
			} else {
				n++ // a pass or the end of the game: one leaf either way
			}
		}
		return n
	}
	for ; moves != 0; moves &= moves - 1 {
		sq := bits.TrailingZeros64(moves)
		f := Flips8(p, o, sq) | 1<<uint(sq)
		n += perft8(o&^f, p|f, depth-1)
	}
	return n
}

// perft10 is perft8 for 10×10 boards.
func perft10(p, o, blocked Bits, depth int) uint64 {
	moves := Legal10(p, o, blocked)
	if moves.IsZero() {
		if depth == 1 || Legal10(o, p, blocked).IsZero() {
			return 1
		}
		return perft10(o, p, blocked, depth-1)
	}
	if depth == 1 {
		return uint64(moves.Count())
	}
	var n uint64
	for sq := moves.First(); sq >= 0; sq = moves.First() {
		m := Bit(sq)
		moves = moves.AndNot(m)
		f := Flips10(p, o, sq).Or(m)
		n += perft10(o.AndNot(f), p.Or(f), blocked, depth-1)
	}
	return n
}

// perftSlow walks the tree through Position, for the modes with rules that
// depend on more than the discs (classic reversi).
func perftSlow(pos Position, depth int) uint64 {
	legal := pos.Legal()
	if legal.IsZero() {
		if depth == 1 || pos.GameOver() {
			return 1
		}
		pos.Turn = pos.Turn.Opponent()
		return perftSlow(pos, depth-1)
	}
	if depth == 1 {
		return uint64(legal.Count())
	}
	var n uint64
	for sq := legal.First(); sq >= 0; sq = legal.First() {
		legal = legal.AndNot(Bit(sq))
		n += perftSlow(pos.play(sq), depth-1)
	}
	return n
}
