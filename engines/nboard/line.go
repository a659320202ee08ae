package nboard

import (
	"fmt"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/internal/text"
)

// LineKind classifies a line an NBoard engine writes.
type LineKind int

// maxQuoted bounds an engine line quoted in an error or a log record
// (characters).
const maxQuoted = 80

// The kinds of engine lines.
const (
	// LineOther is anything else (ignored by the client).
	LineOther LineKind = iota
	// LineMove is the answer to go: "=== F5/eval/time" or "=== f5 0.00 0.0".
	LineMove
	// LinePong answers "ping N": "pong N".
	LinePong
	// LineMyName is "set myname NAME".
	LineMyName
	// LineNodeStats is "nodestats NODES SECONDS".
	LineNodeStats
	// LineStatus is "status TEXT".
	LineStatus
	// LineSearch is "search PV EVAL 0 DEPTH", an answer to hint (Edax:
	// "search e7E8d6H4 0 0 13"); LineBook is "book PV EVAL GAMES LEVEL".
	// Move is the first move of PV.
	LineSearch
	LineBook
)

// Line is one parsed engine line.
type Line struct {
	Kind LineKind
	// Move (a square or othello.Pass), Eval (HasEval) and Time in seconds,
	// for LineMove.
	Move    int
	Eval    float64
	HasEval bool
	Time    float64
	// N is the number of a LinePong.
	N int64
	// Depth is the depth of a LineSearch (0 when not given).
	Depth int
	// Nodes and Time are set for LineNodeStats.
	Nodes uint64
	// Text is the name of LineMyName or the text of LineStatus.
	Text string
}

// ParseLine reads one line from an NBoard engine. An unknown line is
// LineOther with no error; a known line that cannot be read is an error.
// Words are matched case-insensitively.
func ParseLine(s string) (Line, error) {
	s = strings.TrimSpace(s)
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return Line{}, nil
	}
	switch {
	case strings.HasPrefix(s, "==="):
		return parseMoveLine(strings.TrimSpace(s[3:]))
	case strings.EqualFold(fields[0], "pong"):
		if len(fields) < 2 {
			return Line{}, fmt.Errorf("nboard line %q: pong without a number", text.Elide(s, maxQuoted))
		}
		n, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return Line{}, fmt.Errorf("nboard line %q: pong number: %w", text.Elide(s, maxQuoted), err)
		}
		return Line{Kind: LinePong, N: n}, nil
	case strings.EqualFold(fields[0], "set") && len(fields) >= 2 && strings.EqualFold(fields[1], "myname"):
		name := strings.Join(fields[2:], " ")
		return Line{Kind: LineMyName, Text: name}, nil
	case strings.EqualFold(fields[0], "nodestats"):
		if len(fields) < 2 {
			return Line{}, fmt.Errorf("nboard line %q: nodestats without nodes", text.Elide(s, maxQuoted))
		}
		n, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return Line{}, fmt.Errorf("nboard line %q: nodes: %w", text.Elide(s, maxQuoted), err)
		}
		l := Line{Kind: LineNodeStats, Nodes: n}
		if len(fields) >= 3 {
			if t, err := ggf.ParseNumber(fields[2]); err == nil {
				l.Time = t
			}
		}
		return l, nil
	case strings.EqualFold(fields[0], "status"):
		return Line{Kind: LineStatus, Text: strings.TrimSpace(s[len(fields[0]):])}, nil
	case strings.EqualFold(fields[0], "search") || strings.EqualFold(fields[0], "book"):
		return parseHintLine(s, fields)
	}
	return Line{}, nil
}

// parseHintLine reads "search PV EVAL 0 DEPTH" or "book PV EVAL GAMES
// LEVEL": the first move of PV, the eval and, for search, the depth.
func parseHintLine(s string, fields []string) (Line, error) {
	l := Line{Kind: LineSearch}
	if strings.EqualFold(fields[0], "book") {
		l.Kind = LineBook
	}
	if len(fields) < 3 || len(fields[1]) < 2 {
		return Line{}, fmt.Errorf("nboard line %q: no move and eval", text.Elide(s, maxQuoted))
	}
	m, err := ggf.ParseSquare(fields[1][:2])
	if err != nil {
		return Line{}, fmt.Errorf("nboard line %q: %w", text.Elide(s, maxQuoted), err)
	}
	l.Move = m
	if l.Eval, err = ggf.ParseNumber(fields[2]); err != nil {
		return Line{}, fmt.Errorf("nboard line %q: eval: %w", text.Elide(s, maxQuoted), err)
	}
	l.HasEval = true
	if l.Kind == LineSearch && len(fields) >= 5 {
		if d, err := strconv.Atoi(fields[4]); err == nil && d >= 0 && d <= 60 {
			l.Depth = d
		}
	}
	return l, nil
}

// parseMoveLine reads what follows "===": "F5/eval/time", "F5", "PA",
// or "f5 0.00 0.0".
func parseMoveLine(s string) (Line, error) {
	var parts []string
	if strings.Contains(s, "/") {
		parts = strings.Split(s, "/")
	} else {
		parts = strings.Fields(s)
	}
	if len(parts) == 0 || strings.TrimSpace(parts[0]) == "" {
		return Line{}, fmt.Errorf("nboard answer %q: no move", text.Elide(s, maxQuoted))
	}
	m, err := ggf.ParseSquare(parts[0])
	if err != nil {
		return Line{}, fmt.Errorf("nboard answer %q: %w", text.Elide(s, maxQuoted), err)
	}
	l := Line{Kind: LineMove, Move: m}
	if len(parts) > 1 && strings.TrimSpace(parts[1]) != "" {
		if l.Eval, err = ggf.ParseNumber(parts[1]); err != nil {
			return Line{}, fmt.Errorf("nboard answer %q: eval: %w", text.Elide(s, maxQuoted), err)
		}
		l.HasEval = true
	}
	if len(parts) > 2 && strings.TrimSpace(parts[2]) != "" {
		if l.Time, err = ggf.ParseNumber(parts[2]); err != nil {
			return Line{}, fmt.Errorf("nboard answer %q: time: %w", text.Elide(s, maxQuoted), err)
		}
	}
	return l, nil
}
