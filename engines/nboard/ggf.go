package nboard

import (
	"fmt"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
)

// Game is a GGF game record.
//
// Deprecated: the GGF reader and writer live in package engines/ggf; use
// ggf.Game.
type Game = ggf.Game

// GameMove is one B[] or W[] entry of a Game.
//
// Deprecated: use ggf.Move.
type GameMove = ggf.Move

// FormatGGF writes a GGF record of an std game that starts at start,
// followed by moves (squares or othello.Pass), which must be legal.
//
// Deprecated: use ggf.Format.
func FormatGGF(start othello.Position, moves []int) (string, error) {
	g := ggf.Game{Start: start}
	for _, m := range moves {
		g.Moves = append(g.Moves, ggf.Move{Move: m})
	}
	return ggf.Format(g)
}

// ParseGGF reads one GGF game record.
//
// Deprecated: use ggf.Parse.
func ParseGGF(s string) (Game, error) { return ggf.Parse(s) }

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
