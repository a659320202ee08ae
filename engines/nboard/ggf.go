package nboard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
)

// Limits of ParseGGF.
const (
	maxGGFBytes = 64 << 10
	maxGGFMoves = 128
)

// Game is a GGF game record: the starting position and the moves after it.
type Game struct {
	// Start is the position of the BO tag (std mode, Placed zero), or the
	// std starting position when the record has no BO.
	Start othello.Position
	// Moves are the B[] and W[] entries in order.
	Moves []GameMove
	// Tags holds the other tags (PB, PW, PC, DT, RE, TI, TY, …) by name,
	// upper case; a repeated tag keeps its last value.
	Tags map[string]string
}

// GameMove is one B[] or W[] entry.
type GameMove struct {
	// Color is the colour that the tag names.
	Color othello.Color
	// Move is a square or othello.Pass.
	Move int
	// Eval and Time (seconds) follow the move as "F5/eval/time"; HasEval
	// reports whether an evaluation was given.
	Eval    float64
	HasEval bool
	Time    float64
}

// Position replays the moves from the start and returns the position after
// them. A move by the colour that is not to move is accepted only when the
// side to move must pass (an implicit pass); every move must be legal.
func (g Game) Position() (othello.Position, error) {
	pos := g.Start
	for i, m := range g.Moves {
		if m.Color != pos.Turn {
			if !pos.MustPass() {
				return pos, fmt.Errorf("ggf move %d: %s to move, not %s", i+1, pos.Turn, m.Color)
			}
			pos.Turn = m.Color
		}
		next, err := pos.Play(m.Move)
		if err != nil {
			return pos, fmt.Errorf("ggf move %d: %w", i+1, err)
		}
		pos = next
	}
	return pos, nil
}

// FormatGGF writes a GGF record of an std game that starts at start (its
// board and side to move go in BO[]) followed by moves (squares or
// othello.Pass), which must be legal.
func FormatGGF(start othello.Position, moves []int) (string, error) {
	if start.Mode != othello.Std {
		return "", fmt.Errorf("ggf: %s is not std", start.Mode)
	}
	var b strings.Builder
	b.WriteString("(;GM[Othello]PC[flipbot]TY[8]BO[8 ")
	for sq := 0; sq < 64; sq++ {
		switch start.At(sq) {
		case othello.Black:
			b.WriteByte('*')
		case othello.White:
			b.WriteByte('O')
		default:
			b.WriteByte('-')
		}
	}
	if start.Turn == othello.White {
		b.WriteString(" O]")
	} else {
		b.WriteString(" *]")
	}
	pos := start
	for i, m := range moves {
		next, err := pos.Play(m)
		if err != nil {
			return "", fmt.Errorf("ggf move %d: %w", i+1, err)
		}
		tag := "B"
		if pos.Turn == othello.White {
			tag = "W"
		}
		name := "PA"
		if m != othello.Pass {
			name = strings.ToUpper(othello.SquareName(m, 8))
		}
		b.WriteString(tag + "[" + name + "]")
		pos = next
	}
	b.WriteString(";)")
	return b.String(), nil
}

// ParseGGF reads one GGF game record "(;GM[Othello]…;)". Text before "(;"
// is skipped. Only 8×8 boards are accepted.
func ParseGGF(s string) (Game, error) {
	g := Game{Start: othello.New(othello.Std), Tags: map[string]string{}}
	if len(s) > maxGGFBytes {
		return g, fmt.Errorf("ggf: %d bytes is over the %d-byte limit", len(s), maxGGFBytes)
	}
	i := strings.Index(s, "(;")
	if i < 0 {
		return g, errors.New("ggf: no \"(;\" opening a game")
	}
	s = s[i+2:]
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if strings.HasPrefix(s, ";)") {
			return g, nil
		}
		if s == "" {
			return g, errors.New("ggf: game not closed by \";)\"")
		}
		j := 0
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		if j == 0 || j > 8 || j >= len(s) || s[j] != '[' {
			return g, fmt.Errorf("ggf: want a tag at %.20q", s)
		}
		tag := strings.ToUpper(s[:j])
		value, rest, err := tagValue(s[j+1:])
		if err != nil {
			return g, fmt.Errorf("ggf tag %s: %w", tag, err)
		}
		s = rest
		switch tag {
		case "GM":
			if !strings.EqualFold(strings.TrimSpace(value), "othello") {
				return g, fmt.Errorf("ggf: game %q is not Othello", value)
			}
		case "BO":
			pos, err := parseBoard(value)
			if err != nil {
				return g, err
			}
			g.Start = pos
		case "B", "W":
			if len(g.Moves) >= maxGGFMoves {
				return g, fmt.Errorf("ggf: more than %d moves", maxGGFMoves)
			}
			m, err := parseGameMove(value)
			if err != nil {
				return g, err
			}
			m.Color = othello.Black
			if tag == "W" {
				m.Color = othello.White
			}
			g.Moves = append(g.Moves, m)
		default:
			g.Tags[tag] = value
		}
	}
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// tagValue reads a value up to its unescaped "]" and returns it and the
// text after the "]".
func tagValue(s string) (value, rest string, err error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case ']':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", errors.New("value not closed by \"]\"")
}

// parseBoard reads a BO value: "8", then 64 squares (* black, O white, -
// empty; blanks ignored), then the side to move (* or O).
func parseBoard(v string) (othello.Position, error) {
	v = strings.TrimSpace(v)
	size, rest, _ := strings.Cut(v, " ")
	if size != "8" {
		return othello.Position{}, fmt.Errorf("ggf: board size %q is not 8", size)
	}
	var cells []byte
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			cells = append(cells, c)
		}
	}
	if len(cells) != 65 {
		return othello.Position{}, fmt.Errorf("ggf: board has %d squares and side, want 64 and 1", len(cells))
	}
	pos := othello.Position{Mode: othello.Std}
	for sq, c := range cells[:64] {
		switch c {
		case '*', 'X', 'x', 'B', 'b':
			pos.Black = pos.Black.Or(othello.Bit(sq))
		case 'O', 'o', 'W', 'w':
			pos.White = pos.White.Or(othello.Bit(sq))
		case '-', '.', '_':
		default:
			return othello.Position{}, fmt.Errorf("ggf: board square %d is %q", sq, c)
		}
	}
	switch cells[64] {
	case '*', 'X', 'x', 'B', 'b':
		pos.Turn = othello.Black
	case 'O', 'o', 'W', 'w':
		pos.Turn = othello.White
	default:
		return othello.Position{}, fmt.Errorf("ggf: side to move %q", cells[64])
	}
	return pos, nil
}

// parseGameMove reads "F5", "f5/2.45/1.3", "F5//2.45", "PA".
func parseGameMove(v string) (GameMove, error) {
	parts := strings.Split(strings.TrimSpace(v), "/")
	m, err := parseSquare(parts[0])
	if err != nil {
		return GameMove{}, fmt.Errorf("ggf move %q: %w", v, err)
	}
	gm := GameMove{Move: m}
	if len(parts) > 1 && strings.TrimSpace(parts[1]) != "" {
		gm.Eval, err = parseNumber(parts[1])
		if err != nil {
			return GameMove{}, fmt.Errorf("ggf move %q: eval: %w", v, err)
		}
		gm.HasEval = true
	}
	if len(parts) > 2 && strings.TrimSpace(parts[2]) != "" {
		gm.Time, err = parseNumber(parts[2])
		if err != nil {
			return GameMove{}, fmt.Errorf("ggf move %q: time: %w", v, err)
		}
	}
	return gm, nil
}

// parseSquare reads an 8×8 coordinate or a pass ("PA", "pass", …).
func parseSquare(s string) (int, error) {
	s = strings.TrimSpace(s)
	if othello.IsPassToken(s) {
		return othello.Pass, nil
	}
	return othello.ParseSquare(s, 8)
}

// parseNumber reads a finite decimal number.
func parseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if f != f || f > 1e9 || f < -1e9 {
		return 0, fmt.Errorf("number %q out of range", s)
	}
	return f, nil
}
