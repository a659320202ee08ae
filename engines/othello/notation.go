package othello

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// SquareName returns the coordinate of square sq on a board of the given
// size in lower case: "d3" (19 on 8×8, 23 on 10×10), "j10" (99), "pass" for
// [Pass]. An out-of-range square gives its number in parentheses.
func SquareName(sq, size int) string {
	if sq == Pass {
		return "pass"
	}
	if size <= 0 || sq < 0 || sq >= size*size {
		return fmt.Sprintf("(%d)", sq)
	}
	return string(rune('a'+sq%size)) + strconv.Itoa(sq/size+1)
}

// IsPassToken reports whether s is one of the API's pass spellings:
// "pass", "PA", "PS", "--" or "-1", in any case.
func IsPassToken(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "pass", "pa", "ps", "--", "-1":
		return true
	}
	return false
}

// ParseSquare reads a coordinate such as "d3" or "D3" on a board of the given
// size (8 or 10). On 10×10 the tenth rank is written 10 or 0: "j10" = "J0" = 99.
func ParseSquare(s string, size int) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if size != 8 && size != 10 {
		return 0, fmt.Errorf("square %q: board size %d is not 8 or 10", s, size)
	}
	if len(t) < 2 || len(t) > 3 {
		return 0, fmt.Errorf("square %q: want a column letter and a rank", s)
	}
	col := int(t[0]) - 'a'
	if col < 0 || col >= size {
		return 0, fmt.Errorf("square %q: column outside the %d×%d board", s, size, size)
	}
	rank, err := strconv.Atoi(t[1:])
	if err != nil || t[1] == '+' || t[1] == '-' {
		return 0, fmt.Errorf("square %q: bad rank", s)
	}
	if size == 10 && rank == 0 && len(t) == 2 {
		rank = 10
	}
	if rank < 1 || rank > size || (len(t) == 3 && t[1] == '0') {
		return 0, fmt.Errorf("square %q: rank outside the %d×%d board", s, size, size)
	}
	return (rank-1)*size + col, nil
}

// ParseMove reads a move as text: a coordinate, a square number, or a pass
// token. It returns the square or [Pass]; range is checked, legality is not.
func ParseMove(s string, size int) (int, error) {
	t := strings.TrimSpace(s)
	if IsPassToken(t) {
		return Pass, nil
	}
	if n, err := strconv.Atoi(t); err == nil {
		return checkSquare(n, size)
	}
	return ParseSquare(t, size)
}

// ParseMoveJSON reads a move as the API and the engine protocol send it: a
// JSON number (−1 for a pass) or a string accepted by [ParseMove].
func ParseMoveJSON(raw json.RawMessage, size int) (int, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, fmt.Errorf("move %s: %w", raw, err)
		}
		return ParseMove(s, size)
	}
	var n int
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, fmt.Errorf("move %.40s: want a square number or a coordinate", raw)
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, fmt.Errorf("move %.40s: want a square number or a coordinate", raw)
	}
	if n == Pass {
		return Pass, nil
	}
	return checkSquare(n, size)
}

func checkSquare(n, size int) (int, error) {
	if n < 0 || n >= size*size {
		if n == Pass {
			return Pass, nil
		}
		return 0, fmt.Errorf("square %d outside the %d×%d board", n, size, size)
	}
	return n, nil
}
