package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
)

// Format is a format games are exported in.
type Format string

// The export formats.
const (
	// FormatJSONL is the records' own JSON lines (the schema in the
	// package documentation), one game a line; every mode.
	FormatJSONL Format = "jsonl"
	// FormatGGF is one GGF record a line (see [Game.GGF]): std, anti,
	// grand and octagon games, as GGS's game types 8, 8a, 10 and 88
	// (engines/ggf); GGS has none for classic reversi.
	FormatGGF Format = "ggf"
)

// ParseFormat returns the format named s ("jsonl" or "ggf").
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case FormatJSONL, FormatGGF:
		return f, nil
	}
	return "", fmt.Errorf("export format %q: want %s or %s", s, FormatJSONL, FormatGGF)
}

// Expresses reports whether the format can hold a game of mode: every
// mode for JSONL; for GGF, those GGS has a game type for (all but
// reversi).
func (f Format) Expresses(mode string) bool {
	switch f {
	case FormatJSONL:
		return true
	case FormatGGF:
		m, err := othello.ParseMode(mode)
		return err == nil && ggf.Expresses(m)
	}
	return false
}

// ContentType returns the media type of an export in the format, for HTTP
// answers.
func (f Format) ContentType() string {
	if f == FormatGGF {
		return "text/plain; charset=utf-8"
	}
	return "application/x-ndjson"
}

// Writer writes games in a format one at a time: each Write formats one
// game and passes it to the underlying writer at once, so that an export
// of any size holds one game in memory (give it a buffered writer for
// fewer system calls).
type Writer struct {
	w      io.Writer
	format Format
}

// NewWriter returns a Writer of format to w.
func NewWriter(w io.Writer, format Format) *Writer {
	return &Writer{w: w, format: format}
}

// Write writes g. A game the format cannot express is not written, and
// the error wraps ErrNotStd.
func (x *Writer) Write(g *Game) error {
	var b []byte
	switch x.format {
	case FormatJSONL:
		line, err := g.MarshalLine()
		if err != nil {
			return err
		}
		b = line
	case FormatGGF:
		rec, err := g.GGF()
		if err != nil {
			return err
		}
		b = []byte(rec + "\n")
	default:
		return fmt.Errorf("record: export format %q: want %s or %s", x.format, FormatJSONL, FormatGGF)
	}
	if _, err := x.w.Write(b); err != nil {
		return fmt.Errorf("export game %s: %w", g.ID, err)
	}
	return nil
}

// ExportStats counts what an export did.
type ExportStats struct {
	// Written is the number of games written.
	Written int
	// LeftOut is the number of games that passed the filter in a mode the
	// format cannot express (GGF: reversi).
	LeftOut int
	// Gone is the number of games deleted while the export ran (rotated
	// away, by this store or by another process on the same directory).
	Gone int
}

// Export writes in format to w the games that pass f and, when ids are
// given, whose id is among them: oldest first, one game at a time (only
// the games' ids and modes are held in memory, and the store is not locked
// while w is written to). Games in a mode the format cannot express are
// left out and counted, except that a game named in ids fails the export.
// Before anything is written, it fails with an error wrapping ErrNotFound
// for an id that is not kept, and one wrapping ErrNotStd for a game named
// in ids that passes f in a mode the format cannot express. It stops at
// the first error of w.
func (s *Store) Export(w io.Writer, format Format, f Filter, ids ...string) (ExportStats, error) {
	var st ExportStats
	if _, err := ParseFormat(string(format)); err != nil {
		return st, err
	}
	var named map[string]bool
	if len(ids) > 0 {
		named = make(map[string]bool, len(ids))
		for _, id := range ids {
			named[id] = true
		}
		found := map[string]bool{}
		var errs []error
		for _, sum := range s.summaries(func(sum Summary) bool { return named[sum.ID] }) {
			found[sum.ID] = true
			if f.Match(sum) && !format.Expresses(sum.Mode) {
				errs = append(errs, fmt.Errorf("game %s is %s: %w", sum.ID, sum.Mode, ErrNotStd))
			}
		}
		for _, id := range ids {
			if !found[id] {
				errs = append(errs, fmt.Errorf("game %q: %w", id, ErrNotFound))
				found[id] = true // one error per id
			}
		}
		if len(errs) > 0 {
			return st, errors.Join(errs...)
		}
	}
	picked := s.pick(f, named)
	x := NewWriter(w, format)
	for i := len(picked) - 1; i >= 0; i-- {
		if !format.Expresses(picked[i].mode) {
			st.LeftOut++
			continue
		}
		g, err := s.Get(picked[i].id)
		if errors.Is(err, ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			st.Gone++ // rotated away meanwhile
			continue
		}
		if err != nil {
			return st, err
		}
		if err := x.Write(&g); err != nil {
			return st, err
		}
		st.Written++
	}
	return st, nil
}

// WriteJSONL writes the games that pass f as JSON lines, oldest first:
// Export in FormatJSONL.
func (s *Store) WriteJSONL(w io.Writer, f Filter) error {
	_, err := s.Export(w, FormatJSONL, f)
	return err
}

// WriteGGF writes the games that pass f as GGF records, one a line,
// oldest first; reversi games are left out: Export in FormatGGF.
func (s *Store) WriteGGF(w io.Writer, f Filter) error {
	_, err := s.Export(w, FormatGGF, f)
	return err
}
