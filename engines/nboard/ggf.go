package nboard

import (
	"fmt"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
)

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
