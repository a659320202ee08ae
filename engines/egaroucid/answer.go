package egaroucid

import (
	"fmt"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
)

// Answer is Egaroucid's answer to go.
type Answer struct {
	// Move is a square or othello.Pass.
	Move int
	// Value is the evaluation printed after the move with -showvalue.
	Value    float64
	HasValue bool
}

// ParseAnswer reads one line of Egaroucid's stdout: any number of "> "
// prompts, then a coordinate ("f5", "F5") or "ps"/"pass", optionally
// followed by a value. ok is false for other lines (messages, errors),
// which are skipped.
func ParseAnswer(line string) (a Answer, ok bool) {
	s := StripPrompt(line)
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return Answer{}, false
	}
	tok := strings.ToLower(fields[0])
	switch {
	case tok == "ps" || tok == "pass" || tok == "pa":
		a.Move = othello.Pass
	case len(tok) == 2 && tok[0] >= 'a' && tok[0] <= 'h' && tok[1] >= '1' && tok[1] <= '8':
		a.Move = int(tok[1]-'1')*8 + int(tok[0]-'a')
	default:
		return Answer{}, false
	}
	if len(fields) >= 2 {
		if v, err := strconv.ParseFloat(fields[1], 64); err == nil && v == v && v > -1000 && v < 1000 {
			a.Value, a.HasValue = v, true
		}
	}
	return a, true
}

// StripPrompt removes the leading "> " prompts (and blanks) of a line.
func StripPrompt(line string) string {
	s := strings.TrimSpace(line)
	for strings.HasPrefix(s, ">") {
		s = strings.TrimSpace(s[1:])
	}
	return s
}

// BoardString returns pos in setboard's form: 64 squares a1 … h8 (X black,
// O white, - empty) and the side to move (X or O).
func BoardString(pos othello.Position) (string, error) {
	if pos.Mode != othello.Std {
		return "", fmt.Errorf("egaroucid board: %s is not std", pos.Mode)
	}
	var b strings.Builder
	b.Grow(65)
	for sq := 0; sq < 64; sq++ {
		switch pos.At(sq) {
		case othello.Black:
			b.WriteByte('X')
		case othello.White:
			b.WriteByte('O')
		default:
			b.WriteByte('-')
		}
	}
	if pos.Turn == othello.White {
		b.WriteByte('O')
	} else {
		b.WriteByte('X')
	}
	return b.String(), nil
}
