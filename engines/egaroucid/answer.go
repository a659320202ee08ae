package egaroucid

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
)

// Answer is Egaroucid's answer to go.
type Answer struct {
	// Move is a square or othello.Pass.
	Move int
	// Value is the evaluation for the side to move in discs: the Score
	// column of the answer table, or the value printed after the move with
	// -quiet -showvalue.
	Value    float64
	HasValue bool
	// Depth and Probability are the Depth column "21@98%": the depth
	// searched and the selectivity of the search (100 % = no Multi-ProbCut
	// cut: an exact solve when the depth reaches the end). Zero when
	// unknown (a book move, a pass, a -quiet answer).
	Depth, Probability int
	// Time and Nodes are the Time and Nodes columns.
	Time  time.Duration
	Nodes uint64
}

// ParseAnswer reads one line of Egaroucid's stdout: any number of "> "
// prompts, then either a row of the answer table that Egaroucid prints
// without -quiet,
//
//	|              -|        21@98%|             f5|             +2|  000:00:01.234|        1234567|         999999|
//
// (level, depth@selectivity, move, score, time, nodes, nodes per second; a
// pass is "ps" with "-" for level, depth and score), or, with -quiet, a
// coordinate ("f5", "F5") or "ps"/"pass", optionally followed by a value.
// ok is false for other lines (the table's header, messages, errors), which
// are skipped.
func ParseAnswer(line string) (a Answer, ok bool) {
	s := StripPrompt(line)
	if strings.HasPrefix(s, "|") {
		return parseRow(s)
	}
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return Answer{}, false
	}
	if a.Move, ok = parseMove(fields[0]); !ok {
		return Answer{}, false
	}
	if len(fields) >= 2 {
		a.Value, a.HasValue = parseValue(fields[1])
	}
	return a, true
}

// parseRow reads a row of the answer table.
func parseRow(s string) (Answer, bool) {
	cols := strings.Split(strings.Trim(s, "|"), "|")
	if len(cols) < 6 {
		return Answer{}, false
	}
	for i := range cols {
		cols[i] = strings.TrimSpace(cols[i])
	}
	var a Answer
	var ok bool
	if a.Move, ok = parseMove(cols[2]); !ok {
		return Answer{}, false // the header ("Move"), or not a row
	}
	if d, p, found := strings.Cut(cols[1], "@"); found {
		depth, err1 := strconv.Atoi(d)
		prob, err2 := strconv.Atoi(strings.TrimSuffix(p, "%"))
		if err1 == nil && err2 == nil && depth >= 0 && depth <= 60 && prob >= 0 && prob <= 100 {
			a.Depth, a.Probability = depth, prob
		}
	}
	a.Value, a.HasValue = parseValue(cols[3])
	a.Time = parseClock(cols[4])
	if n, err := strconv.ParseUint(cols[5], 10, 64); err == nil {
		a.Nodes = n
	}
	return a, true
}

// parseMove reads a coordinate or a pass.
func parseMove(tok string) (int, bool) {
	tok = strings.ToLower(tok)
	switch {
	case tok == "ps" || tok == "pass" || tok == "pa":
		return othello.Pass, true
	case len(tok) == 2 && tok[0] >= 'a' && tok[0] <= 'h' && tok[1] >= '1' && tok[1] <= '8':
		return int(tok[1]-'1')*8 + int(tok[0]-'a'), true
	}
	return 0, false
}

// parseValue reads a disc value ("+2", "-4", "3.5"); "-" and anything
// outside ±1000 is no value.
func parseValue(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v != v || v <= -1000 || v >= 1000 {
		return 0, false
	}
	return v, true
}

// parseClock reads "HHH:MM:SS.mmm"; zero when it is not one.
func parseClock(s string) time.Duration {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return 0
	}
	h, err1 := strconv.ParseUint(parts[0], 10, 16)
	m, err2 := strconv.ParseUint(parts[1], 10, 8)
	sec, err3 := strconv.ParseFloat(parts[2], 64)
	if err1 != nil || err2 != nil || err3 != nil || m >= 60 || sec < 0 || sec >= 60 {
		return 0
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(sec*float64(time.Second))
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
