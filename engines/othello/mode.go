package othello

import "fmt"

// Mode is a FlipSight game mode.
type Mode uint8

// The five game modes of FlipSight.
const (
	Std     Mode = iota // normal Othello on 8×8
	Anti                // normal moves on 8×8; fewer discs wins
	Grand               // normal rules on 10×10
	Octagon             // 10×10 with 12 corner squares blocked
	Reversi             // classic reversi: empty start, centre first without flips, 32 discs per colour
)

// AllModes returns every mode in the order of the constants.
func AllModes() []Mode { return []Mode{Std, Anti, Grand, Octagon, Reversi} }

var modeNames = [...]string{"std", "anti", "grand", "octagon", "reversi"}

// String returns the API's name of the mode ("std", "anti", …).
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// ParseMode returns the mode named s as the API names it ("std", "anti",
// "grand", "octagon", "reversi").
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown game mode %q", s)
}

// MarshalText encodes the mode as its API name.
func (m Mode) MarshalText() ([]byte, error) {
	if int(m) >= len(modeNames) {
		return nil, fmt.Errorf("unknown game mode %d", uint8(m))
	}
	return []byte(modeNames[m]), nil
}

// UnmarshalText decodes an API mode name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Size returns the side of the mode's board: 8 or 10.
func (m Mode) Size() int {
	if m == Grand || m == Octagon {
		return 10
	}
	return 8
}

// Squares returns the number of squares of the board, blocked ones included.
func (m Mode) Squares() int { s := m.Size(); return s * s }

// octagonBlocked lists octagon's unusable squares in the order the API sends them.
var octagonBlocked = [...]int{0, 1, 10, 8, 9, 19, 80, 90, 91, 89, 98, 99}

// BlockedSquares returns the mode's unusable squares in the order the API
// sends them (octagon's 12 corner squares; empty, never nil, for the others).
func (m Mode) BlockedSquares() []int {
	if m != Octagon {
		return []int{}
	}
	return append([]int(nil), octagonBlocked[:]...)
}

// Blocked returns the mode's unusable squares as a set.
func (m Mode) Blocked() Bits {
	var b Bits
	if m == Octagon {
		for _, sq := range octagonBlocked {
			b = b.Or(Bit(sq))
		}
	}
	return b
}

// LessWins reports whether the mode is won by the side with fewer discs (anti).
func (m Mode) LessWins() bool { return m == Anti }

// ReversiCap is the most discs a colour may place in classic reversi.
const ReversiCap = 32

// reversiCentre holds the four centre squares 27, 28, 35 and 36 (d4 e4 d5 e5).
const reversiCentre = 1<<27 | 1<<28 | 1<<35 | 1<<36

// Color is a disc colour, or Empty. Black moves first.
type Color uint8

// Square contents and colours, with the API's numbers.
const (
	Empty Color = 0
	Black Color = 1
	White Color = 2
)

// Opponent returns the other colour (Black ↔ White).
func (c Color) Opponent() Color { return 3 - c }

// String returns "black", "white" or "empty".
func (c Color) String() string {
	switch c {
	case Black:
		return "black"
	case White:
		return "white"
	case Empty:
		return "empty"
	}
	return fmt.Sprintf("color(%d)", uint8(c))
}

// Placed counts the discs each colour has placed so far, as the API's
// "placed" object {"1": black, "2": white}. Only classic reversi limits it.
type Placed struct {
	Black int `json:"1"`
	White int `json:"2"`
}

// Of returns the count of colour c.
func (p Placed) Of(c Color) int {
	if c == White {
		return p.White
	}
	return p.Black
}

// add returns p with one more disc placed by colour c.
func (p Placed) add(c Color) Placed {
	if c == White {
		p.White++
	} else {
		p.Black++
	}
	return p
}
