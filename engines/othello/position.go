package othello

import (
	"errors"
	"fmt"
	"strings"
)

// Pass is the move number of a pass.
const Pass = -1

// Position is a game state: the mode, the discs of each colour, the colour
// to move and the discs placed so far per colour. The zero value is not a
// valid position; start from [New] or a conversion. Positions are values:
// [Position.Play] returns a new one.
type Position struct {
	Mode   Mode
	Black  Bits
	White  Bits
	Turn   Color
	Placed Placed
}

// New returns the mode's starting position by the rules, black to move:
// the centre four for std, anti, grand and octagon (white on d4 and e5 in
// 8×8 terms), an empty board for reversi. (FlipSight's games start from a
// random 12-disc position derived from this one.)
func New(mode Mode) Position {
	p := Position{Mode: mode, Turn: Black}
	if mode == Reversi {
		return p
	}
	s := mode.Size()
	c := (s/2-1)*s + s/2 - 1 // top-left square of the centre four
	p.White = Bit(c).Or(Bit(c + s + 1))
	p.Black = Bit(c + 1).Or(Bit(c + s))
	return p
}

// Size returns the side of the board: 8 or 10.
func (p Position) Size() int { return p.Mode.Size() }

// Discs returns the discs of colour c.
func (p Position) Discs(c Color) Bits {
	if c == White {
		return p.White
	}
	return p.Black
}

// At returns the content of square sq: Empty, Black or White.
func (p Position) At(sq int) Color {
	switch {
	case p.Black.Has(sq):
		return Black
	case p.White.Has(sq):
		return White
	}
	return Empty
}

// Empties returns the empty playable squares (blocked ones excluded).
func (p Position) Empties() Bits {
	all := Bits{Lo: ^uint64(0)}
	if p.Size() == 10 {
		all = Board10()
	}
	return all.AndNot(p.Black.Or(p.White).Or(p.Mode.Blocked()))
}

// LegalFor returns the legal moves of colour c in this position, whoever is
// to move.
func (p Position) LegalFor(c Color) Bits {
	own, opp := p.Discs(c), p.Discs(c.Opponent())
	switch p.Mode {
	case Grand, Octagon:
		return Legal10(own, opp, p.Mode.Blocked())
	case Reversi:
		if p.Placed.Of(c) >= ReversiCap {
			return Bits{}
		}
		if centre := uint64(reversiCentre) &^ (own.Lo | opp.Lo); centre != 0 {
			return Bits{Lo: centre}
		}
	}
	return Bits{Lo: Legal8(own.Lo, opp.Lo)}
}

// Legal returns the legal moves of the side to move.
func (p Position) Legal() Bits { return p.LegalFor(p.Turn) }

// LegalMoves returns the legal moves of the side to move as square numbers in
// increasing order (never nil), as the API's legal_moves lists them.
func (p Position) LegalMoves() []int { return p.Legal().Squares() }

// MustPass reports whether the side to move has no legal move while the game
// goes on (the opponent can move).
func (p Position) MustPass() bool {
	return p.Legal().IsZero() && !p.LegalFor(p.Turn.Opponent()).IsZero()
}

// GameOver reports whether neither colour can move.
func (p Position) GameOver() bool {
	return p.Legal().IsZero() && p.LegalFor(p.Turn.Opponent()).IsZero()
}

// Flips returns the discs that the side to move would turn over by playing
// sq. It does not check legality.
func (p Position) Flips(sq int) Bits {
	own, opp := p.Discs(p.Turn), p.Discs(p.Turn.Opponent())
	if p.Size() == 10 {
		return Flips10(own, opp, sq)
	}
	if p.Mode == Reversi && reversiCentre&^(own.Lo|opp.Lo) != 0 {
		return Bits{}
	}
	return Bits{Lo: Flips8(own.Lo, opp.Lo, sq)}
}

// ErrIllegalMove is returned (wrapped) by Play for a move the rules forbid.
var ErrIllegalMove = errors.New("illegal move")

// Play returns the position after the side to move plays move: a square, or
// [Pass], which is legal only when the side to move has no legal move and the
// game is not over.
func (p Position) Play(move int) (Position, error) {
	legal := p.Legal()
	if move == Pass {
		if !legal.IsZero() {
			return p, fmt.Errorf("%w: pass with %d legal moves", ErrIllegalMove, legal.Count())
		}
		if p.GameOver() {
			return p, fmt.Errorf("%w: pass after the game is over", ErrIllegalMove)
		}
		p.Turn = p.Turn.Opponent()
		return p, nil
	}
	if !legal.Has(move) {
		return p, fmt.Errorf("%w: %s is not legal for %s", ErrIllegalMove, SquareName(move, p.Size()), p.Turn)
	}
	return p.play(move), nil
}

// play makes a move known to be legal.
func (p Position) play(sq int) Position {
	f := p.Flips(sq).Or(Bit(sq))
	if p.Turn == Black {
		p.Black = p.Black.Or(f)
		p.White = p.White.AndNot(f)
	} else {
		p.White = p.White.Or(f)
		p.Black = p.Black.AndNot(f)
	}
	p.Placed = p.Placed.add(p.Turn)
	p.Turn = p.Turn.Opponent()
	return p
}

// Count returns the number of black and white discs.
func (p Position) Count() (black, white int) { return p.Black.Count(), p.White.Count() }

// Winner returns the colour that wins by the discs on the board under the
// mode's scoring (more discs, or fewer in anti), or Empty for a draw. It is
// meaningful once the game is over.
func (p Position) Winner() Color {
	b, w := p.Count()
	if p.Mode.LessWins() {
		b, w = w, b
	}
	switch {
	case b > w:
		return Black
	case w > b:
		return White
	}
	return Empty
}

// Board returns the board as the API sends it: size² cells, a1 first, row by
// row, 0 empty (blocked squares included), 1 black, 2 white.
func (p Position) Board() []int {
	n := p.Mode.Squares()
	out := make([]int, n)
	for sq := 0; sq < n; sq++ {
		out[sq] = int(p.At(sq))
	}
	return out
}

// String draws the board with rank 1 at the top, as the API numbers it:
// X black, O white, - empty, # blocked, * a legal move of the side to move.
func (p Position) String() string {
	var sb strings.Builder
	s := p.Size()
	legal, blocked := p.Legal(), p.Mode.Blocked()
	sb.WriteString("   ")
	for c := 0; c < s; c++ {
		sb.WriteString(" " + string(rune('a'+c)))
	}
	sb.WriteByte('\n')
	for r := 0; r < s; r++ {
		fmt.Fprintf(&sb, "%2d ", r+1)
		for c := 0; c < s; c++ {
			sq := r*s + c
			ch := "-"
			switch {
			case blocked.Has(sq):
				ch = "#"
			case p.Black.Has(sq):
				ch = "X"
			case p.White.Has(sq):
				ch = "O"
			case legal.Has(sq):
				ch = "*"
			}
			sb.WriteString(" " + ch)
		}
		sb.WriteByte('\n')
	}
	b, w := p.Count()
	fmt.Fprintf(&sb, "%s %s to move, discs %d-%d, placed %d-%d\n", p.Mode, p.Turn, b, w, p.Placed.Black, p.Placed.White)
	return sb.String()
}
