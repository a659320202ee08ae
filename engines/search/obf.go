package search

import (
	"fmt"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
)

// OBFPosition is one line of an OBF file (the FFO test suites): a std
// position and, when the line lists them, the exact score of each move.
type OBFPosition struct {
	Position othello.Position
	// Scores maps each listed move (a square, or othello.Pass) to its
	// exact score for the side to move; nil when the line lists none.
	Scores map[int]int
}

// Best returns the best listed score, and false when no score is listed.
func (o OBFPosition) Best() (int, bool) {
	best, ok := 0, false
	for _, s := range o.Scores {
		if !ok || s > best {
			best, ok = s, true
		}
	}
	return best, ok
}

// ParseOBF reads one OBF line: 64 characters a1…h8 (X or * black, O white,
// - or . empty), a space, the side to move (X or O), then optionally
// "; MOVE:SCORE" items, e.g. "; G8:+18; H1:+12;".
func ParseOBF(line string) (OBFPosition, error) {
	var out OBFPosition
	line = strings.TrimSpace(line)
	head, rest, _ := strings.Cut(line, ";")
	head = strings.TrimSpace(head)
	if len(head) < 66 || head[64] != ' ' {
		return out, fmt.Errorf("obf line: want 64 squares, a space and the side to move")
	}
	pos := othello.Position{Mode: othello.Std}
	for sq := 0; sq < 64; sq++ {
		switch head[sq] {
		case 'X', 'x', '*':
			pos.Black = pos.Black.Or(othello.Bit(sq))
		case 'O', 'o':
			pos.White = pos.White.Or(othello.Bit(sq))
		case '-', '.':
		default:
			return out, fmt.Errorf("obf line: square %d is %q", sq, head[sq])
		}
	}
	switch strings.TrimSpace(head[65:]) {
	case "X", "x", "*":
		pos.Turn = othello.Black
	case "O", "o":
		pos.Turn = othello.White
	default:
		return out, fmt.Errorf("obf line: side to move %q is not X or O", strings.TrimSpace(head[65:]))
	}
	b, w := pos.Count()
	pos.Placed = othello.Placed{Black: b, White: w}
	out.Position = pos
	for _, item := range strings.Split(rest, ";") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		mv, sc, ok := strings.Cut(item, ":")
		if !ok {
			return out, fmt.Errorf("obf line: item %q is not MOVE:SCORE", item)
		}
		sq, err := othello.ParseMove(mv, 8)
		if err != nil {
			return out, fmt.Errorf("obf line: %w", err)
		}
		v, err := strconv.Atoi(strings.TrimSpace(sc))
		if err != nil || v < -64 || v > 64 {
			return out, fmt.Errorf("obf line: bad score %q", sc)
		}
		if out.Scores == nil {
			out.Scores = map[int]int{}
		}
		out.Scores[sq] = v
	}
	return out, nil
}
