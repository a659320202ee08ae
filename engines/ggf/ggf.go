// Package ggf reads and writes GGF game records, the Generic Game Format of
// the GGS game server that Othello tools (NBoard, Edax, WZebra's importers,
// Saio) read:
//
//	(;GM[Othello]PC[flipbot]DT[2026.12.02_16:35:01.UTC]PB[alice]PW[bob]TI[01:00]TY[8]RE[+12.00]
//	BO[8 ---...--- *]B[F5/2.00/1.25]W[D6]...;)
//
// BO holds the starting board (the squares from a1, row by row: * black,
// O white, - empty) and the side to move, so games from FlipSight's random
// 12-disc starts are exact. Each move may carry the mover's evaluation and
// the seconds it took ("F5/eval/time"). RE is the result for black: the
// disc difference, with ":t" when it ended on time.
//
// TY is GGS's game type: a board type (8, 10, or 88 for the octagon, the
// 10×10 board without the three squares of each corner), an optional
// leading s (synchro) and trailing letters (k komi, rN a random start of
// N discs, a anti, b or w a colour asked for). Four FlipSight modes have
// one: std is TY[8], anti TY[8a], grand TY[10] and octagon TY[88], whose
// BO starts with the same board type and lists the playable squares only
// (88 for the octagon), as GGS writes them. Classic reversi (an empty start,
// 32 discs a colour) has none: it is neither read nor written. Parse reads
// what Format writes; NBoard and Edax read 8×8 records only.
//
// One file, ggf.go ([Game], [Parse], [Format]). It may import
// engines/othello only; engines/nboard and bot/record import it.
package ggf

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// Limits of Parse.
const (
	// MaxBytes is the longest record Parse reads.
	MaxBytes = 64 << 10
	// MaxMoves is the most B[] and W[] entries Parse accepts.
	MaxMoves = 128
)

// Game is a GGF game record: the starting position, the moves after it and
// the other tags.
type Game struct {
	// Start is the position of the BO tag (Placed zero) in the mode of
	// the TY and BO tags: std, anti, grand or octagon; the mode's starting
	// position when the record has no BO.
	Start othello.Position
	// Moves are the B[] and W[] entries in order.
	Moves []Move
	// Tags holds the other tags (PB, PW, PC, DT, RE, TI, TY, …) by name,
	// upper case; a repeated tag keeps its last value. Format writes GM,
	// TY and BO itself, from Start, and ignores those keys here.
	Tags map[string]string
}

// Move is one B[] or W[] entry.
type Move struct {
	// Color is the colour that the tag names. Format ignores it and writes
	// the colour to move.
	Color othello.Color
	// Move is a square or othello.Pass.
	Move int
	// Eval is the mover's evaluation in discs, given when HasEval.
	Eval    float64
	HasEval bool
	// Time is the seconds the move took (0: not given).
	Time float64
}

// Position replays the moves from the start and returns the position after
// them. A move by the colour that is not to move is accepted only when the
// side to move must pass (an implicit pass); every move must be legal.
func (g Game) Position() (othello.Position, error) {
	pos := g.Start
	for i, m := range g.Moves {
		if m.Color != 0 && m.Color != pos.Turn {
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

// tagOrder is the order Format writes the known tags in (GGS's order);
// other tags follow in name order, before BO.
var tagOrder = []string{"PC", "DT", "PB", "PW", "RB", "RW", "TI", "TB", "TW"}

// Format writes g as one GGF record. The start must be a position of a
// mode GGF has a game type for (std, anti, grand, octagon; not reversi)
// and every move legal (passes explicit, as othello.Pass). PC defaults to
// "flipbot". Tag values are escaped.
func Format(g Game) (string, error) {
	ty, board, err := gameType(g.Start.Mode)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("(;GM[Othello]")
	tags := map[string]string{"PC": "flipbot"}
	for k, v := range g.Tags {
		switch k = strings.ToUpper(k); k {
		case "GM", "TY", "BO", "B", "W":
		default:
			tags[k] = v
		}
	}
	writeTag := func(k string) {
		if v, ok := tags[k]; ok {
			b.WriteString(k + "[" + escape(v) + "]")
			delete(tags, k)
		}
	}
	for _, k := range tagOrder {
		writeTag(k)
	}
	b.WriteString("TY[" + ty + "]")
	writeTag("RE")
	rest := make([]string, 0, len(tags))
	for k := range tags {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	for _, k := range rest {
		if validTag(k) {
			writeTag(k)
		}
	}
	size, blocked := g.Start.Size(), g.Start.Mode.Blocked()
	b.WriteString("BO[" + board + " ")
	for sq := range size * size {
		if blocked.Has(sq) {
			continue // GGS lists the playable squares only
		}
		switch g.Start.At(sq) {
		case othello.Black:
			b.WriteByte('*')
		case othello.White:
			b.WriteByte('O')
		default:
			b.WriteByte('-')
		}
	}
	if g.Start.Turn == othello.White {
		b.WriteString(" O]")
	} else {
		b.WriteString(" *]")
	}
	pos := g.Start
	for i, m := range g.Moves {
		next, err := pos.Play(m.Move)
		if err != nil {
			return "", fmt.Errorf("ggf move %d: %w", i+1, err)
		}
		tag := "B"
		if pos.Turn == othello.White {
			tag = "W"
		}
		name := "PA"
		if m.Move != othello.Pass {
			name = strings.ToUpper(othello.SquareName(m.Move, size))
		}
		b.WriteString(tag + "[" + name)
		if m.HasEval || m.Time > 0 {
			b.WriteByte('/')
			if m.HasEval {
				b.WriteString(number(m.Eval))
			}
			if m.Time > 0 {
				b.WriteString("/" + number(m.Time))
			}
		}
		b.WriteByte(']')
		pos = next
	}
	b.WriteString(";)")
	return b.String(), nil
}

// Expresses reports whether GGF has a game type for mode: std, anti, grand
// and octagon; not classic reversi.
func Expresses(mode othello.Mode) bool {
	_, _, err := gameType(mode)
	return err == nil
}

// gameType returns the TY value of mode and the board type that starts
// its BO.
func gameType(mode othello.Mode) (ty, board string, err error) {
	switch mode {
	case othello.Std:
		return "8", "8", nil
	case othello.Anti:
		return "8a", "8", nil
	case othello.Grand:
		return "10", "10", nil
	case othello.Octagon:
		return "88", "88", nil
	}
	return "", "", fmt.Errorf("ggf: %s has no GGS game type", mode)
}

// modeOf returns the FlipSight mode of a board type (8, 10, 88) and
// whether the game is anti.
func modeOf(board string, anti bool) (othello.Mode, error) {
	switch {
	case board == "8" && anti:
		return othello.Anti, nil
	case board == "8":
		return othello.Std, nil
	case anti:
		return 0, fmt.Errorf("ggf: anti on board type %q is no FlipSight mode", board)
	case board == "10":
		return othello.Grand, nil
	case board == "88":
		return othello.Octagon, nil
	}
	return 0, fmt.Errorf("ggf: board type %q is no FlipSight board (want 8, 10 or 88)", board)
}

// parseType reads a TY value: [s]BOARD then k, rN, a, b or w, in any
// order. It returns the board type and whether the game is anti.
func parseType(v string) (board string, anti bool, err error) {
	t := strings.TrimSpace(v)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "s"), "S")
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 || i > 2 {
		return "", false, fmt.Errorf("ggf: game type %q has no board type", v)
	}
	board = t[:i]
	for i < len(t) {
		switch c := t[i] | 0x20; c {
		case 'a':
			anti = true
		case 'k', 'b', 'w':
		case 'r':
			for i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' {
				i++
			}
		default:
			return "", false, fmt.Errorf("ggf: game type %q: unknown %q", v, t[i])
		}
		i++
	}
	return board, anti, nil
}

// Date formats t as GGS writes DT: 2026.12.02_16:35:01.UTC.
func Date(t time.Time) string {
	return t.UTC().Format("2006.01.02_15:04:05") + ".UTC"
}

// Result formats RE: black's disc difference, ":t" when the game ended on
// time.
func Result(blackMinusWhite int, onTime bool) string {
	s := fmt.Sprintf("%+d.00", blackMinusWhite)
	if blackMinusWhite == 0 {
		s = "0.00"
	}
	if onTime {
		s += ":t"
	}
	return s
}

// Clock formats TI for a time per player: mm:ss.
func Clock(d time.Duration) string {
	s := int64(d / time.Second)
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func escape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', ']':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r', '\n', '\t':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func validTag(k string) bool {
	if k == "" || len(k) > 8 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if !isLetter(k[i]) {
			return false
		}
	}
	return true
}

// Parse reads one GGF game record "(;GM[Othello]…;)". Text before "(;" is
// skipped. The board is BO's, else TY's, else 8×8: std, anti (TY with
// a), grand (10) or octagon (88); TY and BO must agree.
func Parse(s string) (Game, error) {
	g := Game{Start: othello.New(othello.Std), Tags: map[string]string{}}
	if len(s) > MaxBytes {
		return g, fmt.Errorf("ggf: %d bytes is over the %d-byte limit", len(s), MaxBytes)
	}
	i := strings.Index(s, "(;")
	if i < 0 {
		return g, errors.New("ggf: no \"(;\" opening a game")
	}
	s = s[i+2:]
	var ty, bo *string
	type rawMove struct {
		color othello.Color
		value string
	}
	var moves []rawMove
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if strings.HasPrefix(s, ";)") {
			break
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
			bo = &value
		case "B", "W":
			if len(moves) >= MaxMoves {
				return g, fmt.Errorf("ggf: more than %d moves", MaxMoves)
			}
			c := othello.Black
			if tag == "W" {
				c = othello.White
			}
			moves = append(moves, rawMove{c, value})
		default:
			if tag == "TY" {
				ty = &value
			}
			g.Tags[tag] = value
		}
	}
	board, anti := "8", false
	if ty != nil {
		var err error
		if board, anti, err = parseType(*ty); err != nil {
			return g, err
		}
	}
	if bo != nil {
		b, _, _ := strings.Cut(strings.TrimSpace(*bo), " ")
		if ty != nil && b != board {
			return g, fmt.Errorf("ggf: board type %q of BO is not TY's %q", b, board)
		}
		board = b
	}
	mode, err := modeOf(board, anti)
	if err != nil {
		return g, err
	}
	g.Start = othello.New(mode)
	if bo != nil {
		if g.Start, err = parseBoard(*bo, mode); err != nil {
			return g, err
		}
	}
	for _, rm := range moves {
		m, err := parseMove(rm.value, mode.Size())
		if err != nil {
			return g, err
		}
		m.Color = rm.color
		g.Moves = append(g.Moves, m)
	}
	return g, nil
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

// parseBoard reads a BO value of mode: its board type, then its playable
// squares (* black, O white, - empty; blanks ignored), then the side to
// move (* or O).
func parseBoard(v string, mode othello.Mode) (othello.Position, error) {
	v = strings.TrimSpace(v)
	_, rest, _ := strings.Cut(v, " ")
	size, blocked := mode.Size(), mode.Blocked()
	playable := size*size - blocked.Count()
	var cells []byte
	for i := 0; i < len(rest); i++ {
		if c := rest[i]; c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			if len(cells) > playable {
				return othello.Position{}, fmt.Errorf("ggf: board has more than %d squares and side", playable+1)
			}
			cells = append(cells, c)
		}
	}
	if len(cells) != playable+1 {
		return othello.Position{}, fmt.Errorf("ggf: board has %d squares and side, want %d and 1", len(cells), playable)
	}
	pos := othello.Position{Mode: mode}
	k := 0
	for sq := range size * size {
		if blocked.Has(sq) {
			continue
		}
		switch c := cells[k]; c {
		case '*', 'X', 'x', 'B', 'b':
			pos.Black = pos.Black.Or(othello.Bit(sq))
		case 'O', 'o', 'W', 'w':
			pos.White = pos.White.Or(othello.Bit(sq))
		case '-', '.', '_':
		default:
			return othello.Position{}, fmt.Errorf("ggf: board square %d is %q", sq, c)
		}
		k++
	}
	switch cells[playable] {
	case '*', 'X', 'x', 'B', 'b':
		pos.Turn = othello.Black
	case 'O', 'o', 'W', 'w':
		pos.Turn = othello.White
	default:
		return othello.Position{}, fmt.Errorf("ggf: side to move %q", cells[playable])
	}
	return pos, nil
}

// parseMove reads "F5", "f5/2.45/1.3", "F5//2.45", "PA", "J10" on a
// board of side size.
func parseMove(v string, size int) (Move, error) {
	parts := strings.Split(strings.TrimSpace(v), "/")
	m, err := parseSquare(parts[0], size)
	if err != nil {
		return Move{}, fmt.Errorf("ggf move %q: %w", v, err)
	}
	gm := Move{Move: m}
	if len(parts) > 1 && strings.TrimSpace(parts[1]) != "" {
		gm.Eval, err = ParseNumber(parts[1])
		if err != nil {
			return Move{}, fmt.Errorf("ggf move %q: eval: %w", v, err)
		}
		gm.HasEval = true
	}
	if len(parts) > 2 && strings.TrimSpace(parts[2]) != "" {
		gm.Time, err = ParseNumber(parts[2])
		if err != nil {
			return Move{}, fmt.Errorf("ggf move %q: time: %w", v, err)
		}
		if gm.Time < 0 {
			return Move{}, fmt.Errorf("ggf move %q: negative time", v)
		}
	}
	return gm, nil
}

// ParseSquare reads a move's square as GGF (and NBoard, which speaks GGF's
// move syntax) writes it: an 8×8 coordinate or a pass ("PA", "pass", …).
func ParseSquare(s string) (int, error) { return parseSquare(s, 8) }

// parseSquare is ParseSquare on a board of side size.
func parseSquare(s string, size int) (int, error) {
	s = strings.TrimSpace(s)
	if othello.IsPassToken(s) {
		return othello.Pass, nil
	}
	return othello.ParseSquare(s, size)
}

// ParseNumber reads an evaluation or a time of a GGF move: a finite
// decimal number within ±1e9.
func ParseNumber(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, err
	}
	if math.IsNaN(f) || f > 1e9 || f < -1e9 {
		return 0, fmt.Errorf("number %q out of range", s)
	}
	return f, nil
}
