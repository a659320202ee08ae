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

	"flipbot.dev/flipbot/engines/othello"
)

// fakeAnalysis is an analysis of g in the right shape: every move the
// best but every third, which loses loss discs.
func fakeAnalysis(g Game, loss float64) Analysis {
	a := Analysis{Schema: AnalysisSchema, Game: g.ID, Engine: "test", ElapsedMS: 1234, Final: Eval{Score: 4, Exact: true}}
	for i, m := range g.Moves {
		am := AnalysedMove{Color: m.Color, Move: m.Move, Square: m.Square, Best: m.Move, BestSquare: m.Square,
			Score: 2, Played: 2, Depth: 10, Forced: m.Move == othello.Pass}
		if i%3 == 2 && m.Move != othello.Pass {
			am.Best, am.BestSquare, am.Played, am.Loss = othello.Pass, "pass", 2-loss, loss
		}
		a.Moves = append(a.Moves, am)
	}
	return a
}

func TestLossClass(t *testing.T) {
	for loss, want := range map[float64]string{0: ClassBest, 0.9: ClassBest, 1: ClassInaccuracy, 3.9: ClassInaccuracy,
		4: ClassMistake, 9.5: ClassMistake, 10: ClassBlunder, 64: ClassBlunder} {
		assert.Equal(t, want, LossClass(loss), "loss %v", loss)
	}
}

func TestAnalysisSummaryAndCurve(t *testing.T) {
	g := games(t, 1)[0]
	a := fakeAnalysis(g, 6)
	s := a.Summary()
	for c := range 2 {
		assert.Positive(t, s.Counted[c])
		assert.Equal(t, 6.0, s.Worst[c].Loss)
		assert.Equal(t, g.Moves[s.Worst[c].Ply-1].Square, s.Worst[c].Square)
		assert.Equal(t, c+1, g.Moves[s.Worst[c].Ply-1].Color)
	}
	mean, n, worst := s.Side(2)
	assert.Equal(t, s.MeanLoss[1], mean)
	assert.Equal(t, s.Counted[1], n)
	assert.Equal(t, s.Worst[1], worst)
	curve := a.Curve()
	require.Len(t, curve, len(g.Moves)+1)
	assert.Equal(t, 4.0, curve[len(curve)-1])
	for i, m := range a.Moves {
		if m.Color == 2 {
			assert.Equal(t, -2.0, curve[i])
		} else {
			assert.Equal(t, 2.0, curve[i])
		}
	}
}

func TestAnalysisCheckRefuses(t *testing.T) {
	g := games(t, 1)[0]
	for name, change := range map[string]func(a *Analysis){
		"schema":         func(a *Analysis) { a.Schema = 2 },
		"id":             func(a *Analysis) { a.Game = "../x" },
		"other game":     func(a *Analysis) { a.Game = "1-0-1" },
		"too few moves":  func(a *Analysis) { a.Moves = a.Moves[1:] },
		"other move":     func(a *Analysis) { a.Moves[0].Move, a.Moves[0].Square = 0, "a1" },
		"other colour":   func(a *Analysis) { a.Moves[0].Color = 3 - a.Moves[0].Color },
		"square name":    func(a *Analysis) { a.Moves[1].Square = "<b>" },
		"best off board": func(a *Analysis) { a.Moves[1].Best, a.Moves[1].BestSquare = 400, "z9" },
		"best name":      func(a *Analysis) { a.Moves[1].BestSquare = "a1" },
		"huge score":     func(a *Analysis) { a.Moves[1].Score = 1e9 },
		"negative loss":  func(a *Analysis) { a.Moves[1].Loss = -1 },
		"depth":          func(a *Analysis) { a.Moves[1].Depth = 1000 },
		"final":          func(a *Analysis) { a.Final.Score = -500 },
		"turning order":  func(a *Analysis) { a.TurningPoints = []int{5, 3} },
		"turning range":  func(a *Analysis) { a.TurningPoints = []int{len(a.Moves) + 1} },
		"engine text":    func(a *Analysis) { a.Engine = strings.Repeat("x", 200) },
		"elapsed":        func(a *Analysis) { a.ElapsedMS = -1 },
	} {
		a := fakeAnalysis(g, 3)
		require.NoError(t, a.Check(&g))
		change(&a)
		err := a.Check(&g)
		require.ErrorIs(t, err, ErrBadAnalysis, name)
	}
}

func TestParseAnalysisRefusesLargeFilesUnread(t *testing.T) {
	_, err := ParseAnalysis(bytes.Repeat([]byte(" "), MaxAnalysisBytes+1), othello.Std, 0)
	require.ErrorIs(t, err, ErrBadAnalysis)
	assert.Contains(t, err.Error(), "at most")
}

// TestLargestAnalysisFits: the analysis of a game of the most moves,
// every field at its longest, is well within MaxAnalysisBytes.
func TestLargestAnalysisFits(t *testing.T) {
	mode := othello.Grand
	a := Analysis{Schema: AnalysisSchema, Game: strings.Repeat("9", 64), Engine: strings.Repeat("x", 4*MaxText)}
	for range MaxMoves(mode) {
		a.Moves = append(a.Moves, AnalysedMove{Color: 1, Move: 99, Square: "j10", Best: 98, BestSquare: "i10",
			Score: -99.123456789, Played: -99.987654321, Loss: 0.864197532, Depth: 255, Exact: true, Forced: true})
		a.TurningPoints = append(a.TurningPoints, len(a.Moves))
	}
	b, err := MarshalAnalysis(&a)
	require.NoError(t, err)
	assert.Less(t, len(b), MaxAnalysisBytes/2)
}

func TestStoreKeepsAnalysesBesideTheGames(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 5)
	s := Open(Options{Dir: dir})
	for _, g := range gs {
		require.NoError(t, s.Add(g))
	}
	_, err := s.Analysis(gs[1].ID)
	require.ErrorIs(t, err, ErrNoAnalysis)
	_, err = s.Analysis("1-0-1")
	require.ErrorIs(t, err, ErrNotFound)

	a := fakeAnalysis(gs[1], 5)
	require.NoError(t, s.SaveAnalysis(a))
	got, err := s.Analysis(gs[1].ID)
	require.NoError(t, err)
	assert.Equal(t, a.Moves, got.Moves)
	st := s.Status()
	assert.Equal(t, 1, st.Analysed)
	assert.Positive(t, st.AnalysisBytes)

	bad := fakeAnalysis(gs[2], 5)
	bad.Moves[0].Move, bad.Moves[0].Square = gs[2].Moves[0].Move+1, othello.SquareName(gs[2].Moves[0].Move+1, gs[2].BoardSize)
	require.ErrorIs(t, s.SaveAnalysis(bad), ErrBadAnalysis, "an analysis of other moves is refused")
	wrong := fakeAnalysis(gs[2], 5)
	wrong.Game = "1-0-1"
	require.ErrorIs(t, s.SaveAnalysis(wrong), ErrNotFound)

	list, _ := s.List(Filter{}, 0, 0)
	for _, sum := range list {
		if sum.ID == gs[1].ID {
			require.NotNil(t, sum.Analysis)
			assert.Equal(t, a.Summary(), *sum.Analysis)
		} else {
			assert.Nil(t, sum.Analysis, sum.ID)
		}
	}

	// Reopened (an update, a reboot): the analysis is still there, and
	// a damaged one is skipped as not analysed.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "analysis", gs[3].ID+".json"), []byte(`{"schema":1,`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "analysis", ".tmp-x-123"), []byte(`half`), 0o644))
	s2 := Open(Options{Dir: dir})
	assert.Equal(t, 1, s2.Status().Analysed)
	got, err = s2.Analysis(gs[1].ID)
	require.NoError(t, err)
	assert.Equal(t, a.Moves, got.Moves)
	_, err = s2.Analysis(gs[3].ID)
	require.ErrorIs(t, err, ErrBadAnalysis)
	_, err = os.Stat(filepath.Join(dir, "analysis", ".tmp-x-123"))
	require.ErrorIs(t, err, os.ErrNotExist, "a crashed write's temp file is deleted")

	// Replaced by a new analysis.
	a2 := fakeAnalysis(gs[1], 12)
	require.NoError(t, s2.SaveAnalysis(a2))
	got, err = s2.Analysis(gs[1].ID)
	require.NoError(t, err)
	assert.Equal(t, a2.Moves, got.Moves)
	assert.Equal(t, 1, s2.Status().Analysed)
}

// TestAnalysesRotateWithTheirGames: analyses count in the cap, and go with
// their games when the oldest files are deleted; an analysis left by a
// game rotated away elsewhere is deleted at the next open.
func TestAnalysesRotateWithTheirGames(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 60)
	s := Open(Options{Dir: dir, CapBytes: MinCapBytes})
	var ids []string
	analysed := 0
	for round := 0; ; round++ {
		for _, g := range gs {
			g.ID = MakeID(g.MatchID+int64(round)*1000, g.Leg, g.Ended.Add(time.Duration(round)*time.Hour))
			g.Ended = g.Ended.Add(time.Duration(round) * time.Hour)
			g.MatchID += int64(round) * 1000
			require.NoError(t, s.Add(g))
			require.NoError(t, s.SaveAnalysis(fakeAnalysis(g, 2)))
			ids = append(ids, g.ID)
			analysed++
		}
		if _, err := s.Get(ids[0]); errors.Is(err, ErrNotFound) && round > 0 {
			break
		}
		require.Less(t, round, 20)
	}
	st := s.Status()
	assert.LessOrEqual(t, st.Bytes, int64(MinCapBytes))
	assert.Positive(t, st.AnalysisBytes)
	assert.Equal(t, st.Games, st.Analysed, "every kept game keeps its analysis")
	_, err := os.Stat(filepath.Join(dir, "analysis", ids[0]+".json"))
	require.ErrorIs(t, err, os.ErrNotExist, "the oldest game's analysis went with it")
	files, err := os.ReadDir(filepath.Join(dir, "analysis"))
	require.NoError(t, err)
	assert.Len(t, files, st.Analysed)

	// An orphan older than every kept game goes at the next open; a newer
	// one (its game may be being written by another process) stays.
	old := fakeAnalysis(gs[0], 1)
	old.Game = MakeID(1, 0, gs[0].Ended.Add(-time.Hour))
	newer := fakeAnalysis(gs[0], 1)
	newer.Game = MakeID(1, 0, gs[0].Ended.Add(1000*time.Hour))
	for _, a := range []Analysis{old, newer} {
		b, err := MarshalAnalysis(&a)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "analysis", a.Game+".json"), b, 0o644))
	}
	Open(Options{Dir: dir})
	_, err = os.Stat(filepath.Join(dir, "analysis", old.Game+".json"))
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(filepath.Join(dir, "analysis", newer.Game+".json"))
	require.NoError(t, err)
}

// FuzzParseAnalysis: the analysis reader never panics, and whatever it
// accepts is within CheckShape's bounds and reads back.
func FuzzParseAnalysis(f *testing.F) {
	g := games(f, 1)[0]
	a := fakeAnalysis(g, 3)
	a.TurningPoints = []int{3}
	b, _ := MarshalAnalysis(&a)
	f.Add(b, len(g.Moves))
	f.Add([]byte(`{"schema":1,"game":"1-0-1","moves":[{"color":1,"move":99,"square":"j10"}]}`), 1)
	f.Add([]byte(`{"schema":1,"game":"1-0-1","moves":[],"final":{"score":1e400}}`), 0)
	f.Add([]byte(`{"schema":1,"game":"1-0-1","moves":[],"turning_points":[1,1,1]}`), 0)
	mode, _ := othello.ParseMode(g.Mode)
	f.Fuzz(func(t *testing.T, b []byte, moves int) {
		moves = max(0, min(moves, MaxMoves(mode)))
		a, err := ParseAnalysis(b, mode, moves)
		if err != nil {
			if !errors.Is(err, ErrBadAnalysis) {
				t.Fatalf("an error that is not ErrBadAnalysis: %v", err)
			}
			return
		}
		if len(a.Moves) != moves || len(a.TurningPoints) > moves {
			t.Fatalf("accepted %d moves, %d turning points for %d", len(a.Moves), len(a.TurningPoints), moves)
		}
		for _, m := range a.Moves {
			if m.Loss < 0 || m.Loss > 2*float64(mode.Squares()) {
				t.Fatalf("accepted loss %v", m.Loss)
			}
		}
		_ = a.Summary()
		_ = a.Curve()
		back, err := MarshalAnalysis(&a)
		if err != nil || len(back) > MaxAnalysisBytes {
			t.Fatalf("an accepted analysis writes %d bytes (%v)", len(back), err)
		}
		if _, err := ParseAnalysis(back, mode, moves); err != nil {
			t.Fatalf("an accepted analysis does not read back: %v", err)
		}
	})
}
