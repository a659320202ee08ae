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

func TestTallies(t *testing.T) {
	an := func(mean float64, n int) *AnalysisSummary {
		return &AnalysisSummary{MeanLoss: [2]float64{mean, mean + 10}, Counted: [2]int{n, n}}
	}
	white := func(mean float64, n int) *AnalysisSummary {
		return &AnalysisSummary{MeanLoss: [2]float64{mean + 10, mean}, Counted: [2]int{n, n}}
	}
	sums := []Summary{
		{Mode: "std", Opponent: "Edax", MyColor: 1, Result: Win, Discs: [2]int{40, 24}, Analysis: an(1, 20)},
		{Mode: "std", Opponent: "Zebra", MyColor: 2, Result: Loss, Discs: [2]int{40, 24}, Analysis: white(3, 30)},
		{Mode: "std", Opponent: "Edax", MyColor: 2, Result: Draw, Discs: [2]int{32, 32}},
		{Mode: "anti", Opponent: "Edax", MyColor: 1, Result: Win, Discs: [2]int{20, 44}, Analysis: an(2, 10)},
		{Mode: "std", Opponent: "nobody", MyColor: 0, Result: "", Discs: [2]int{33, 31}},
	}
	byMode := Tallies(sums, func(s Summary) string { return s.Mode })
	require.Len(t, byMode, 2, "games without the bot are not counted")
	std := byMode[0]
	assert.Equal(t, "std", std.Key, "the largest group first")
	assert.Equal(t, 3, std.Games)
	assert.Equal(t, [3]int{1, 1, 1}, [3]int{std.Wins, std.Draws, std.Losses})
	assert.InDelta(t, (40+24+32)/3.0, std.MeanDiscs, 1e-9, "the bot's discs, whichever its colour")
	assert.InDelta(t, (24+40+32)/3.0, std.MeanOpponentDiscs, 1e-9)
	assert.Equal(t, 2, std.Analysed)
	assert.Equal(t, 50, std.Moves)
	assert.InDelta(t, (1*20+3*30)/50.0, std.MeanLoss, 1e-9, "per move over the analysed games")
	byOpp := Tallies(sums, func(s Summary) string { return s.Opponent })
	assert.Equal(t, "Edax", byOpp[0].Key)
	assert.Equal(t, 3, byOpp[0].Games)
	assert.Equal(t, "Zebra", byOpp[1].Key)
	assert.Empty(t, Tallies(nil, func(s Summary) string { return s.Mode }))
}
