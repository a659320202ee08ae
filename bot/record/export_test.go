package record

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/ggf"
)

// exportStore keeps n games (modes in the order of othello.AllModes, each
// ending a minute after the one before) and returns them oldest first.
func exportStore(t *testing.T, n int) (*Store, []Game) {
	t.Helper()
	dir := t.TempDir()
	gs := games(t, n)
	for i := range gs {
		gs[i].Ended = gs[0].Started.Add(time.Duration(i+1) * time.Minute)
		gs[i].ID = MakeID(gs[i].MatchID, gs[i].Leg, gs[i].Ended)
	}
	s := Open(Options{Dir: dir})
	for _, g := range gs {
		require.NoError(t, s.Add(g))
	}
	return s, gs
}

// callWriter records each Write call.
type callWriter struct {
	calls [][]byte
	fail  int // fail at this call (1-based); 0 never
}

var errSink = errors.New("sink refused")

func (w *callWriter) Write(p []byte) (int, error) {
	if w.fail > 0 && len(w.calls)+1 == w.fail {
		return 0, errSink
	}
	w.calls = append(w.calls, bytes.Clone(p))
	return len(p), nil
}

func TestParseFormat(t *testing.T) {
	for _, tt := range []struct {
		in                    string
		want                  Format
		std, anti, grand, rev bool
		ctype                 string
	}{
		{"jsonl", FormatJSONL, true, true, true, true, "application/x-ndjson"},
		{"ggf", FormatGGF, true, true, true, false, "text/plain; charset=utf-8"},
	} {
		f, err := ParseFormat(tt.in)
		require.NoError(t, err)
		assert.Equal(t, tt.want, f)
		assert.Equal(t, tt.std, f.Expresses("std"))
		assert.Equal(t, tt.anti, f.Expresses("anti"))
		assert.Equal(t, tt.grand, f.Expresses("grand"))
		assert.Equal(t, tt.grand, f.Expresses("octagon"))
		assert.Equal(t, tt.rev, f.Expresses("reversi"))
		assert.False(t, f == FormatGGF && f.Expresses("chess"))
		assert.Equal(t, tt.ctype, f.ContentType())
	}
	for _, bad := range []string{"", "GGF", "json", "sgf"} {
		_, err := ParseFormat(bad)
		assert.Error(t, err, bad)
	}
}

func TestExport(t *testing.T) {
	s, gs := exportStore(t, 10) // two games of each mode
	byMode := func(mode string) []Game {
		var out []Game
		for _, g := range gs {
			if g.Mode == mode {
				out = append(out, g)
			}
		}
		return out
	}
	var notReversi []Game
	for _, g := range gs {
		if g.Mode != "reversi" {
			notReversi = append(notReversi, g)
		}
	}
	tests := []struct {
		name    string
		format  Format
		filter  Filter
		ids     []string
		want    []Game
		leftOut int
	}{
		{name: "jsonl, everything", format: FormatJSONL, want: gs},
		{name: "jsonl, anti", format: FormatJSONL, filter: Filter{Mode: "anti"}, want: byMode("anti")},
		{name: "ggf, every mode but reversi", format: FormatGGF, want: notReversi, leftOut: 2},
		{name: "ggf, grand", format: FormatGGF, filter: Filter{Mode: "grand"}, want: byMode("grand")},
		{name: "ggf, reversi: all left out", format: FormatGGF, filter: Filter{Mode: "reversi"}, leftOut: 2},
		{name: "named games, oldest first", format: FormatJSONL, ids: []string{gs[7].ID, gs[2].ID, gs[7].ID}, want: []Game{gs[2], gs[7]}},
		{name: "a named game the filter leaves out", format: FormatJSONL, filter: Filter{Mode: "std"}, ids: []string{gs[1].ID}},
		{name: "ggf, a named std game", format: FormatGGF, ids: []string{gs[5].ID}, want: []Game{gs[5]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w callWriter
			st, err := s.Export(&w, tt.format, tt.filter, tt.ids...)
			require.NoError(t, err)
			assert.Equal(t, ExportStats{Written: len(tt.want), LeftOut: tt.leftOut}, st)
			require.Len(t, w.calls, len(tt.want), "one write per game")
			for i, call := range w.calls {
				require.True(t, bytes.HasSuffix(call, []byte("\n")))
				require.Equal(t, 1, bytes.Count(call, []byte("\n")), "one line per game")
				want := tt.want[i]
				if tt.format == FormatJSONL {
					g, err := ParseLine(call)
					require.NoError(t, err)
					assert.Equal(t, want, g)
					continue
				}
				gg, err := ggf.Parse(string(call))
				require.NoError(t, err)
				assert.Equal(t, want.Black.Name, gg.Tags["PB"])
				require.Len(t, gg.Moves, len(want.Moves))
				end, err := gg.Position()
				require.NoError(t, err)
				states, err := want.Replay()
				require.NoError(t, err)
				assert.Equal(t, states[len(states)-1].Board(), end.Board())
			}
		})
	}
}

func TestExportRefusesBeforeWriting(t *testing.T) {
	s, gs := exportStore(t, 5)
	tests := []struct {
		name   string
		format Format
		ids    []string
		is     error
	}{
		{"an unknown id", FormatJSONL, []string{gs[0].ID, "1-0-1"}, ErrNotFound},
		{"a named reversi game as GGF", FormatGGF, []string{gs[0].ID, gs[4].ID}, ErrNotStd},
		{"an unknown format", Format("sgf"), nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w callWriter
			st, err := s.Export(&w, tt.format, Filter{}, tt.ids...)
			require.Error(t, err)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Empty(t, w.calls, "nothing written")
			assert.Zero(t, st)
		})
	}
}

func TestExportStopsAtTheWritersError(t *testing.T) {
	s, _ := exportStore(t, 5)
	w := callWriter{fail: 2}
	st, err := s.Export(&w, FormatJSONL, Filter{})
	require.ErrorIs(t, err, errSink)
	assert.Equal(t, 1, st.Written)
	assert.Len(t, w.calls, 1)
}

func TestExportSkipsGamesDeletedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 4)
	w := Open(Options{Dir: dir, CapBytes: MinCapBytes})
	for _, g := range gs {
		require.NoError(t, w.Add(g))
	}
	// A second store on the same directory, as `flipbot games` beside a
	// running bot; the bot's rotation then deletes the file.
	r := Open(Options{Dir: dir})
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, des, 1)
	require.NoError(t, os.Remove(filepath.Join(dir, des[0].Name())))
	var buf bytes.Buffer
	st, err := r.Export(&buf, FormatJSONL, Filter{})
	require.NoError(t, err)
	assert.Equal(t, ExportStats{Gone: 4}, st)
	assert.Empty(t, buf.String())
}

func TestWriterRefusesOtherModesAsGGF(t *testing.T) {
	gs := games(t, 5)
	var buf strings.Builder
	x := NewWriter(&buf, FormatGGF)
	require.NoError(t, x.Write(&gs[0]))
	require.NoError(t, x.Write(&gs[1]), "anti")
	require.ErrorIs(t, x.Write(&gs[4]), ErrNotStd)
	assert.Equal(t, 2, strings.Count(buf.String(), "\n"), "the reversi game wrote nothing")
	require.Error(t, NewWriter(&buf, "sgf").Write(&gs[0]))
}

func FuzzParseFormat(f *testing.F) {
	f.Add("jsonl")
	f.Add("ggf")
	f.Add("GGF ")
	f.Fuzz(func(t *testing.T, s string) {
		fm, err := ParseFormat(s)
		if err != nil {
			return
		}
		if string(fm) != s || !fm.Expresses("std") {
			t.Fatalf("accepted %q as %q", s, fm)
		}
	})
}
