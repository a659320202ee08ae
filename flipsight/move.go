package flipsight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Move is a move value as it travels on the wire. The service accepts and may
// send either an integer square (row*board_size+col, -1 = pass) or a string
// ("d3", "D3", "j10", "J0", "pass", "PA", "PS", "--"). A Move keeps which form
// it had: Text is non-empty for the string form, otherwise Square holds the
// integer. The zero Move is square 0 (a1); use Pass for a pass.
//
// Translating a string into a square depends on the board size and is done
// by the rules package (engines/othello), not here.
type Move struct {
	// Square is the integer form, meaningful when Text is empty.
	Square int
	// Text is the string form as sent; empty for an integer move.
	Text string
}

// Pass is the integer pass move, -1.
var Pass = Move{Square: -1}

// SquareMove returns the integer form of a move.
func SquareMove(square int) Move { return Move{Square: square} }

// TextMove returns the string form of a move, sent verbatim.
func TextMove(text string) Move { return Move{Text: text} }

// IsText reports whether the move has the string form.
func (m Move) IsText() bool { return m.Text != "" }

// IsPassSquare reports whether the move is the integer pass -1.
func (m Move) IsPassSquare() bool { return m.Text == "" && m.Square == -1 }

// String returns the move as text: the string form, or the integer in decimal.
func (m Move) String() string {
	if m.Text != "" {
		return m.Text
	}
	return strconv.Itoa(m.Square)
}

// MarshalJSON encodes the string form as a JSON string and the integer form
// as a JSON number.
func (m Move) MarshalJSON() ([]byte, error) {
	if m.Text != "" {
		return json.Marshal(m.Text)
	}
	return strconv.AppendInt(nil, int64(m.Square), 10), nil
}

// UnmarshalJSON accepts a JSON integer or a non-empty JSON string. Floats
// with a fraction, null, booleans, arrays and objects are errors.
func (m *Move) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return fmt.Errorf("move: empty value")
	}
	switch b[0] {
	case '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("move: %w", err)
		}
		if s == "" {
			return fmt.Errorf("move: empty string")
		}
		*m = Move{Text: s}
		return nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("move: %w", err)
		}
		v, err := n.Int64()
		if err != nil {
			// Accept an integral float such as 19.0, refuse 19.5.
			f, ferr := n.Float64()
			if ferr != nil || f != float64(int64(f)) {
				return fmt.Errorf("move: %s is not an integer", n)
			}
			v = int64(f)
		}
		if v < -1<<31 || v > 1<<31-1 {
			return fmt.Errorf("move: %d out of range", v)
		}
		*m = Move{Square: int(v)}
		return nil
	}
	return fmt.Errorf("move: want an integer or a string, got %.20s", b)
}
