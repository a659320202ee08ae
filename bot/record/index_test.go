package record

import (
	"bufio"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// variant is the i-th of many different games made from tmpl: its own
// id and match, an end time (every third the same as the one before), an
// opponent among opps, every seventh played by neither side as the bot's
// (my_color 0), every fifth match aborted, the result by the colour.
func variant(tmpl Game, i, opps int) Game {
	g := cloneGame(tmpl)
	g.Schema = Schema
	g.MatchID = int64(i + 1)
	g.Ended = time.UnixMilli(1_796_400_000_000).UTC().Add(time.Duration(i-i%3/2) * time.Second)
	g.ID = MakeID(g.MatchID, g.Leg, g.Ended)
	g.MyColor = 1 + i%2
	if i%7 == 6 {
		g.MyColor = 0
	}
	g.Black.Me, g.White.Me = g.MyColor == 1, g.MyColor == 2
	name := fmt.Sprintf("Bot%02d", i%opps)
	if g.MyColor == 1 {
		g.White.Name, g.Black.Name = name, "me"
	} else {
		g.Black.Name, g.White.Name = name, "me"
	}
	g.Result = LegResult(g.Winner, g.MyColor)
	g.MatchResult = ""
	if i%5 == 4 {
		g.MatchResult = Aborted
	}
	return g
}

// writeGames writes n variants of tmpls (round robin) straight into
// games files of dir (no fsync per game, as a store of many games would
// be slow to fill by Add), in files of at most fileBytes.
func writeGames(t testing.TB, dir string, tmpls []Game, n, opps int, fileBytes int64) []Game {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var out []Game
	var f *os.File
	var w *bufio.Writer
	var inFile int64
	num := 0
	for i := range n {
		if f == nil || inFile >= fileBytes {
			if f != nil {
				require.NoError(t, w.Flush())
				require.NoError(t, f.Close())
			}
			num++
			var err error
			f, err = os.Create(filepath.Join(dir, segName(num)))
			require.NoError(t, err)
			w, inFile = bufio.NewWriter(f), 0
		}
		g := variant(tmpls[i%len(tmpls)], i, opps)
		require.NoError(t, g.Check())
		line, err := g.MarshalLine()
		require.NoError(t, err)
		_, err = w.Write(line)
		require.NoError(t, err)
		inFile += int64(len(line))
		out = append(out, g)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return out
}

// bytesPerCall returns the bytes f allocates a call, over runs calls.
func bytesPerCall(runs int, f func()) float64 {
	f() // warm up
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(runs)
}

// TestListCostDoesNotGrowWithTheStore: a page of a list, filtered or not,
// and the page's tallies allocate as much on a store of 3,000 games as on
// one of 300 (before, every request copied and sorted the summaries of
// every game: ten times the bytes on ten times the games).
func TestListCostDoesNotGrowWithTheStore(t *testing.T) {
	tmpls := games(t, 5)
	open := func(n int) *Store {
		dir := t.TempDir()
		writeGames(t, dir, tmpls, n, 40, 1<<20)
		s := Open(Options{Dir: dir, CapBytes: 1 << 30, Logger: slog.New(slog.DiscardHandler)})
		require.Equal(t, n, s.Status().Games)
		return s
	}
	small, large := open(300), open(3000)
	requests := []struct {
		name string
		call func(s *Store)
	}{
		{"the first game", func(s *Store) { s.List(Filter{}, 0, 1) }},
		{"a page", func(s *Store) { s.List(Filter{}, 20, 50) }},
		{"a filtered page", func(s *Store) { s.List(Filter{Mode: "std", Result: Win, Opponent: "bot1"}, 1, 5) }},
		{"the tallies", func(s *Store) { s.Overview(Filter{}, 12) }},
		{"filtered tallies", func(s *Store) { s.Overview(Filter{Mode: "anti", Opponent: "BOT"}, 12) }},
		{"the status", func(s *Store) { s.Status() }},
	}
	for _, r := range requests {
		t.Run(r.name, func(t *testing.T) {
			b0 := bytesPerCall(50, func() { r.call(small) })
			b1 := bytesPerCall(50, func() { r.call(large) })
			t.Logf("%.0f bytes a call with 300 games, %.0f with 3,000", b0, b1)
			assert.LessOrEqual(t, b1, b0+512, "the cost grows with the games kept")
			a0 := testing.AllocsPerRun(20, func() { r.call(small) })
			a1 := testing.AllocsPerRun(20, func() { r.call(large) })
			assert.LessOrEqual(t, a1, a0+2, "allocations grow with the games kept")
		})
	}
}

// reference is what List and Overview must return: every summary, newest
// first (among equal end times in the order kept), filtered, tallied.
func reference(all []Summary, f Filter) []Summary {
	out := []Summary{}
	for _, s := range all {
		if f.Match(s) {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Ended.After(out[j].Ended) })
	return out
}

// TestListAndOverviewAgreeWithTheSummaries: the index and the running
// tallies give what filtering, sorting and tallying the summaries of every
// game gives, after games are added, analysed and rotated away.
func TestListAndOverviewAgreeWithTheSummaries(t *testing.T) {
	tmpls := games(t, 5)
	dir := t.TempDir()
	writeGames(t, dir, tmpls, 150, 7, 40<<10)
	s := Open(Options{Dir: dir, CapBytes: 1 << 30, Logger: slog.New(slog.DiscardHandler)})
	for i := 150; i < 170; i++ {
		require.NoError(t, s.Add(variant(tmpls[i%5], i, 7)))
	}
	all, n := s.List(Filter{}, 0, 0)
	require.Equal(t, 170, n)
	for i, sum := range all {
		if i%4 == 0 {
			g, err := s.Get(sum.ID)
			require.NoError(t, err)
			require.NoError(t, s.SaveAnalysis(fakeAnalysis(g, float64(i%9))))
		}
	}
	filters := []Filter{{}, {Mode: "std"}, {Result: Win}, {Result: Aborted}, {Opponent: "bot0"}, {Opponent: "BOT"},
		{Mode: "anti", Result: Loss, Opponent: "3"}, {Opponent: "nobody"}}
	check := func(t *testing.T) {
		t.Helper()
		everything, total := s.List(Filter{}, 0, 0)
		require.Len(t, everything, total)
		for _, f := range filters {
			want := reference(everything, f)
			got, n := s.List(f, 0, 0)
			assert.Equal(t, len(want), n, "%+v", f)
			assert.Equal(t, want, got, "%+v", f)
			for _, page := range [][2]int{{0, 1}, {3, 10}, {len(want) - 2, 50}, {len(want) + 5, 10}} {
				got, n := s.List(f, page[0], page[1])
				assert.Equal(t, len(want), n)
				w := want[min(max(page[0], 0), len(want)):]
				w = w[:min(len(w), page[1])]
				assert.Equal(t, w, got, "%+v page %v", f, page)
			}
			ov := s.Overview(f, 3)
			analysed := 0
			for _, sum := range want {
				if sum.Analysis != nil {
					analysed++
				}
			}
			assert.Equal(t, len(want), ov.Games, "%+v", f)
			assert.Equal(t, analysed, ov.Analysed, "%+v", f)
			assertTallies(t, Tallies(want, func(s Summary) string { return s.Mode }), ov.ByMode)
			byOpp := Tallies(want, func(s Summary) string { return s.Opponent })
			assertTallies(t, byOpp[:min(3, len(byOpp))], ov.ByOpponent)
			assert.Equal(t, max(len(byOpp)-3, 0), ov.MoreOpponents)
		}
	}
	t.Run("after adding and analysing", check)
	s.SetCap(MinCapBytes / 4) // the oldest files go, with their analyses
	require.Less(t, s.Status().Games, 170)
	require.Positive(t, s.Status().Games)
	t.Run("after a rotation", check)
	reopened := Open(Options{Dir: dir, CapBytes: MinCapBytes, Logger: slog.New(slog.DiscardHandler)})
	before, _ := s.List(Filter{}, 0, 0)
	after, _ := reopened.List(Filter{}, 0, 0)
	assert.Equal(t, before, after, "the same list after a restart")
}

// assertTallies compares tallies, the means within rounding.
func assertTallies(t *testing.T, want, got []Tally) {
	t.Helper()
	require.Equal(t, len(want), len(got), "want %v, got %v", want, got)
	for i := range want {
		w, g := want[i], got[i]
		assert.InDelta(t, w.MeanDiscs, g.MeanDiscs, 1e-9, w.Key)
		assert.InDelta(t, w.MeanOpponentDiscs, g.MeanOpponentDiscs, 1e-9, w.Key)
		assert.InDelta(t, w.MeanLoss, g.MeanLoss, 1e-9, w.Key)
		w.MeanDiscs, w.MeanOpponentDiscs, w.MeanLoss = 0, 0, 0
		g.MeanDiscs, g.MeanOpponentDiscs, g.MeanLoss = 0, 0, 0
		assert.Equal(t, w, g)
	}
}

// TestOverviewKeepsTheLargestOpponents: the opponents' rows are the
// largest groups, then by name, however many opponents there are.
func TestOverviewKeepsTheLargestOpponents(t *testing.T) {
	tmpls := games(t, 1)
	dir := t.TempDir()
	writeGames(t, dir, tmpls, 90, 30, 1<<20)
	s := Open(Options{Dir: dir, Logger: slog.New(slog.DiscardHandler)})
	all, _ := s.List(Filter{}, 0, 0)
	want := Tallies(all, func(s Summary) string { return s.Opponent })
	for _, k := range []int{0, 1, 5, 29, 30, 40} {
		ov := s.Overview(Filter{}, k)
		keys := func(ts []Tally) []string {
			var out []string
			for _, t := range ts {
				out = append(out, t.Key)
			}
			return out
		}
		assert.Equal(t, keys(want[:min(k, len(want))]), keys(ov.ByOpponent), "k=%d", k)
		assert.Equal(t, max(len(want)-k, 0), ov.MoreOpponents, "k=%d", k)
		assert.True(t, slices.IsSortedFunc(ov.ByOpponent, cmpTally))
	}
}
