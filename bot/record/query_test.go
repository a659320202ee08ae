package record

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFilter(t *testing.T) {
	long := strings.Repeat("a", MaxOpponentFilter-1) + "é" // the é straddles the limit
	tests := []struct {
		name                   string
		mode, result, opponent string
		want                   Filter
		errs                   []string // substrings of the error; none: no error
	}{
		{name: "empty", want: Filter{}},
		{name: "all fields", mode: "grand", result: "loss", opponent: "  House ", want: Filter{Mode: "grand", Result: Loss, Opponent: "House"}},
		{name: "aborted", result: "aborted", want: Filter{Result: Aborted}},
		{name: "bad mode kept apart", mode: "chess", result: "win", want: Filter{Result: Win}, errs: []string{`mode "chess"`}},
		{name: "bad result", mode: "std", result: "won", want: Filter{Mode: "std"}, errs: []string{`result "won"`}},
		{name: "mode is case-sensitive as the API's", mode: "STD", want: Filter{}, errs: []string{`mode "STD"`}},
		{name: "long opponent cut at a character", opponent: long, want: Filter{Opponent: long[:MaxOpponentFilter-1]}, errs: []string{"opponent"}},
		{name: "cut then trimmed", opponent: strings.Repeat("b", MaxOpponentFilter-1) + " c", want: Filter{Opponent: strings.Repeat("b", MaxOpponentFilter-1)}, errs: []string{"opponent"}},
		{name: "every error", mode: "x", result: "y", opponent: long, want: Filter{Opponent: long[:MaxOpponentFilter-1]}, errs: []string{`mode "x"`, `result "y"`, "opponent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFilter(tt.mode, tt.result, tt.opponent)
			assert.Equal(t, tt.want, f)
			if len(tt.errs) == 0 {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, e := range tt.errs {
				assert.Contains(t, err.Error(), e)
			}
		})
	}
}

func TestFilterMatch(t *testing.T) {
	s := Summary{Mode: "grand", Result: Loss, MatchResult: Aborted, Opponent: "HouseBot"}
	tests := []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{Mode: "grand", Result: Loss, Opponent: "house"}, true},
		{Filter{Result: Aborted}, true},
		{Filter{Opponent: "EBO"}, true},
		{Filter{Mode: "std"}, false},
		{Filter{Result: Win}, false},
		{Filter{Opponent: "zebra"}, false},
		{Filter{Mode: "grand", Opponent: "zebra"}, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.f.Match(s), "%+v", tt.f)
	}
}

func FuzzParseFilter(f *testing.F) {
	f.Add("std", "win", "house")
	f.Add("grand", "aborted", "  "+strings.Repeat("é", 40))
	f.Add("x", "", "\xff\xfe")
	f.Fuzz(func(t *testing.T, mode, result, opponent string) {
		flt, err := ParseFilter(mode, result, opponent)
		if len(flt.Opponent) > MaxOpponentFilter {
			t.Fatalf("opponent of %d bytes kept", len(flt.Opponent))
		}
		if utf8.ValidString(opponent) && !utf8.ValidString(flt.Opponent) {
			t.Fatalf("cut inside a character: %q", flt.Opponent)
		}
		if err == nil && (flt.Mode != mode || flt.Result != result) {
			t.Fatalf("changed a value it accepted: %+v", flt)
		}
		// What it returns it accepts unchanged.
		again, err := ParseFilter(flt.Mode, flt.Result, flt.Opponent)
		if err != nil || again != flt {
			t.Fatalf("not a fixed point: %+v → %+v, %v", flt, again, err)
		}
	})
}
