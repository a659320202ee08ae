package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// played is a finished leg made by the rules: a random 12-disc start as
// the site makes them and random moves to the end, with server times.
type played struct {
	match flipsight.Match
	leg   flipsight.Leg
	final othello.Position
}

func playLeg(t testing.TB, mode othello.Mode, seed uint64, id int64) played {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	pos := othello.New(mode)
	var opening []flipsight.Move
	want := 8
	if mode == othello.Reversi {
		want = 12
	}
	for len(opening) < want {
		l := pos.LegalMoves()
		if len(l) == 0 {
			pos, _ = pos.Play(othello.Pass)
			continue
		}
		mv := l[rng.IntN(len(l))]
		pos, _ = pos.Play(mv)
		opening = append(opening, flipsight.SquareMove(mv))
	}
	startMS := int64(1_796_400_000_000) + int64(seed)*1000
	at := startMS
	var hist []flipsight.HistoryEntry
	clocks := []float64{60000, 60000}
	for !pos.GameOver() {
		mv := othello.Pass
		if l := pos.LegalMoves(); len(l) > 0 {
			mv = l[rng.IntN(len(l))]
		}
		took := int64(rng.IntN(900) + 1)
		at += took
		clocks[pos.Turn-1] -= float64(took)
		p := 0
		hist = append(hist, flipsight.HistoryEntry{Color: int(pos.Turn), Participant: &p, Move: flipsight.SquareMove(mv), AtMS: at})
		var err error
		pos, err = pos.Play(mv)
		require.NoError(t, err)
	}
	b, w := pos.Count()
	reason := flipsight.FinishDiscs
	winner := 0
	fin := at
	m := flipsight.Match{ID: id, BotA: 11, BotB: 22, GameMode: mode.String(), TimeLimitSec: 60, Status: flipsight.MatchFinished, Ranked: true,
		State: &flipsight.MatchState{GameMode: mode.String(), TimeLimitSec: 60, Status: flipsight.StateFinished, StartedMS: startMS,
			OpeningMoves: opening, BoardSize: mode.Size(), BlockedSquares: mode.BlockedSquares(), FinishReason: &reason, Winner: &winner}}
	leg := flipsight.Leg{Board: pos.Board(), Turn: int(pos.Turn), BlackParticipant: 1, ClocksMS: clocks, History: hist,
		Status: flipsight.LegFinished, Discs: []int{b, w}, FinishedMS: &fin, LegalMoves: []int{}}
	return played{match: m, leg: leg, final: pos}
}

func input(p played) LegInput {
	return LegInput{Source: SourceFlipSight, Match: p.match, Leg: 1, View: p.leg,
		Names: [2]string{"mybot", "house"}, IDs: [2]int64{11, 22}, Me: 0,
		Searches:    map[int]Search{1: {Source: "engine", Depth: 12, Score: 3.5, HasScore: true}, 3: {Source: "forced"}},
		MatchResult: Win}
}

func TestFromLegAllModes(t *testing.T) {
	for i, mode := range othello.AllModes() {
		t.Run(mode.String(), func(t *testing.T) {
			p := playLeg(t, mode, uint64(i+1), int64(100+i))
			g, err := FromLeg(input(p))
			require.NoError(t, err)
			require.NoError(t, g.Check())
			assert.Equal(t, mode.String(), g.Mode)
			assert.Equal(t, mode.Size(), g.BoardSize)
			assert.Equal(t, "house", g.Black.Name, "participant 1 is black in this leg")
			assert.Equal(t, "mybot", g.White.Name)
			assert.True(t, g.White.Me)
			assert.Equal(t, 2, g.MyColor)
			assert.Equal(t, "house", g.Opponent())
			discs := 0
			for _, c := range g.Start.Board {
				if c != 0 {
					discs++
				}
			}
			assert.Equal(t, 12, discs, "the random 12-disc start")
			require.Len(t, g.Moves, len(p.leg.History))
			states, err := g.Replay()
			require.NoError(t, err)
			assert.Equal(t, p.final.Board(), states[len(states)-1].Board())
			// Times from the server's at_ms; clocks run down by them.
			var spent [2]int64
			for j, m := range g.Moves {
				assert.Positive(t, m.TimeMS, "move %d", j)
				spent[m.Color-1] += m.TimeMS
				assert.Equal(t, 60000-spent[m.Color-1], m.ClockMS, "move %d", j)
			}
			assert.Equal(t, [2]int64{int64(p.leg.ClocksMS[0]), int64(p.leg.ClocksMS[1])}, g.FinalClocksMS)
			require.NotNil(t, g.Moves[1].Score)
			assert.InDelta(t, 3.5, *g.Moves[1].Score, 1e-9)
			assert.Equal(t, 12, g.Moves[1].Depth)
			assert.Nil(t, g.Moves[3].Score)
			assert.Equal(t, "forced", g.Moves[3].Source)
			assert.Equal(t, LegWinner(mode.String(), g.ResultDiscs), g.Winner)
			assert.Equal(t, LegResult(g.Winner, 2), g.Result)
			assert.Equal(t, "discs", g.Reason)
			assert.Equal(t, MakeID(int64(100+i), 1, g.Ended), g.ID)
			if mode == othello.Octagon {
				assert.Len(t, g.Blocked, 12)
			}

			// JSON lines round trip.
			line, err := g.MarshalLine()
			require.NoError(t, err)
			assert.Equal(t, byte('\n'), line[len(line)-1])
			assert.Equal(t, 1, bytes.Count(line, []byte("\n")))
			back, err := ParseLine(line)
			require.NoError(t, err)
			assert.Equal(t, g, back)

			// GGF for every mode but reversi, round trip through the GGF
			// reader.
			rec, err := g.GGF()
			if mode == othello.Reversi {
				require.ErrorIs(t, err, ErrNotStd)
				return
			}
			require.NoError(t, err)
			gg, err := ggf.Parse(rec)
			require.NoError(t, err)
			assert.Equal(t, "house", gg.Tags["PB"])
			assert.Equal(t, "mybot", gg.Tags["PW"])
			assert.Equal(t, ggf.Result(g.ResultDiscs[0]-g.ResultDiscs[1], false), gg.Tags["RE"])
			require.Len(t, gg.Moves, len(g.Moves))
			for j, m := range g.Moves {
				assert.Equal(t, m.Move, gg.Moves[j].Move)
				assert.InDelta(t, float64(m.TimeMS)/1000, gg.Moves[j].Time, 0.006)
				assert.Equal(t, m.Score != nil, gg.Moves[j].HasEval)
			}
			end, err := gg.Position()
			require.NoError(t, err)
			assert.Equal(t, p.final.Board(), end.Board())
		})
	}
}

func TestFromLegRefuses(t *testing.T) {
	p := playLeg(t, othello.Std, 9, 5)
	in := input(p)
	in.View.Status = flipsight.LegActive
	_, err := FromLeg(in)
	require.Error(t, err, "an active leg")

	in = input(p)
	in.View.History = append([]flipsight.HistoryEntry(nil), in.View.History...)
	in.View.History[3].Move = flipsight.SquareMove(0)
	_, err = FromLeg(in)
	require.Error(t, err, "an illegal move")

	in = input(p)
	in.Match.State = &flipsight.MatchState{GameMode: "std"}
	_, err = FromLeg(in)
	require.Error(t, err, "no opening and no start board")

	in = input(p)
	in.Match.State = nil
	_, err = FromLeg(in)
	require.Error(t, err)
}

func TestFromLegHumanStartsAtTheInitialPosition(t *testing.T) {
	pos := othello.New(othello.Std)
	var hist []flipsight.HistoryEntry
	for i := 0; i < 10; i++ {
		mv := pos.LegalMoves()[0]
		hist = append(hist, flipsight.HistoryEntry{Color: int(pos.Turn), Move: flipsight.TextMove(othello.SquareName(mv, 8)), AtMS: int64(1000 + i)})
		pos, _ = pos.Play(mv)
	}
	round := int64(3)
	m := flipsight.Match{ID: -7, Kind: flipsight.KindHuman, BotA: 11, GameMode: "std", Status: flipsight.MatchFinished,
		State: &flipsight.MatchState{GameMode: "std", RoundNo: &round}}
	g, err := FromLeg(LegInput{Source: SourceFlipSight, Match: m, View: flipsight.Leg{BlackParticipant: 0, History: hist,
		Status: flipsight.LegStopped}, Names: [2]string{"mybot", "human"}, Me: 0, Ended: time.Unix(5, 0)})
	require.NoError(t, err)
	assert.True(t, g.Human)
	assert.Equal(t, int64(3), g.Round)
	assert.Equal(t, othello.New(othello.Std).Board(), g.Start.Board)
	assert.Len(t, g.Moves, 10)
	assert.Equal(t, "-7-0-5000", g.ID)
	require.NoError(t, g.Check())
}

func TestLegWinner(t *testing.T) {
	assert.Equal(t, 1, LegWinner("std", [2]int{40, 24}))
	assert.Equal(t, 2, LegWinner("anti", [2]int{40, 24}))
	assert.Equal(t, 0, LegWinner("grand", [2]int{50, 50}))
	assert.Equal(t, "", LegResult(1, 0))
}

func games(t testing.TB, n int) []Game {
	var out []Game
	for i := 0; i < n; i++ {
		mode := othello.AllModes()[i%5]
		g, err := FromLeg(input(playLeg(t, mode, uint64(i+1), int64(1000+i))))
		require.NoError(t, err)
		out = append(out, g)
	}
	return out
}

func TestStoreKeepsGamesAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 7)
	s := Open(Options{Dir: dir})
	for _, g := range gs {
		require.NoError(t, s.Add(g))
	}
	require.NoError(t, s.Add(gs[0]), "a game kept twice is ignored")
	st := s.Status()
	assert.True(t, st.OK)
	assert.Equal(t, 7, st.Games)

	s2 := Open(Options{Dir: dir})
	assert.Equal(t, 7, s2.Status().Games)
	list, n := s2.List(Filter{}, 0, 0)
	require.Equal(t, 7, n)
	for i := 1; i < len(list); i++ {
		assert.False(t, list[i].Ended.After(list[i-1].Ended), "newest first")
	}
	for _, g := range gs {
		got, err := s2.Get(g.ID)
		require.NoError(t, err)
		assert.Equal(t, g, got)
	}
	_, err := s2.Get("1-2-3")
	require.ErrorIs(t, err, ErrNotFound)

	list, n = s2.List(Filter{Mode: "std"}, 0, 1)
	assert.Equal(t, 2, n)
	assert.Len(t, list, 1)

	var jl bytes.Buffer
	require.NoError(t, s2.WriteJSONL(&jl, Filter{}))
	lines := strings.Split(strings.TrimSuffix(jl.String(), "\n"), "\n")
	require.Len(t, lines, 7)
	for _, l := range lines {
		_, err := ParseLine([]byte(l))
		require.NoError(t, err)
	}
	var gg bytes.Buffer
	require.NoError(t, s2.WriteGGF(&gg, Filter{}))
	recs := strings.Split(strings.TrimSuffix(gg.String(), "\n"), "\n")
	require.Len(t, recs, 6, "every game but the reversi one")
	for _, r := range recs {
		_, err := ggf.Parse(r)
		require.NoError(t, err)
	}
}

func TestStoreSkipsATornTailAndNeverAppendsAfterIt(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 3)
	s := Open(Options{Dir: dir})
	require.NoError(t, s.Add(gs[0]))
	path := filepath.Join(dir, segName(1))
	line, err := gs[1].MarshalLine()
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.Write(line[:len(line)/2]) // a power cut in the middle of a write
	require.NoError(t, err)
	require.NoError(t, f.Close())
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	s2 := Open(Options{Dir: dir})
	st := s2.Status()
	assert.Equal(t, 1, st.Games)
	assert.Equal(t, 1, st.Skipped)
	require.NoError(t, s2.Add(gs[2]))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the torn file is not appended to")
	_, err = os.Stat(filepath.Join(dir, segName(2)))
	require.NoError(t, err, "the next game starts a new file")
	s3 := Open(Options{Dir: dir})
	assert.Equal(t, 2, s3.Status().Games)
}

func TestStoreSkipsBadLines(t *testing.T) {
	dir := t.TempDir()
	g := games(t, 1)[0]
	line, err := g.MarshalLine()
	require.NoError(t, err)
	other := g
	other.Schema = 99
	unknown, err := json.Marshal(other)
	require.NoError(t, err)
	content := "not json\n" + string(unknown) + "\n{\"schema\":1,\"id\":\"x\"}\n" + string(line)
	require.NoError(t, os.WriteFile(filepath.Join(dir, segName(4)), []byte(content), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "games-x.jsonl"), []byte("ignored"), 0o644))
	s := Open(Options{Dir: dir})
	st := s.Status()
	assert.Equal(t, 1, st.Games)
	assert.Equal(t, 3, st.Skipped)
	got, err := s.Get(g.ID)
	require.NoError(t, err)
	assert.Equal(t, g, got)
}

func TestStoreRotatesOldestFirst(t *testing.T) {
	dir := t.TempDir()
	gs := games(t, 60)
	s := Open(Options{Dir: dir, CapBytes: MinCapBytes})
	line, err := gs[0].MarshalLine()
	require.NoError(t, err)
	// Write until the cap has been passed a few times over.
	var ids []string
	for round := 0; 2*int64(len(ids))*int64(len(line)) < 3*MinCapBytes; round++ {
		for _, g := range gs {
			g.ID = MakeID(g.MatchID+int64(round)*1000, g.Leg, g.Ended)
			g.MatchID += int64(round) * 1000
			require.NoError(t, s.Add(g))
			ids = append(ids, g.ID)
		}
	}
	st := s.Status()
	assert.LessOrEqual(t, st.Bytes, int64(MinCapBytes))
	assert.Greater(t, st.Bytes, int64(MinCapBytes)/2)
	_, err = s.Get(ids[0])
	require.ErrorIs(t, err, ErrNotFound, "the oldest games went first")
	_, err = s.Get(ids[len(ids)-1])
	require.NoError(t, err, "the newest game stays")
	var total int64
	des, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, de := range des {
		fi, err := de.Info()
		require.NoError(t, err)
		total += fi.Size()
	}
	assert.Equal(t, st.Bytes, total)
	s.SetCap(2 * MinCapBytes)
	assert.Equal(t, int64(2*MinCapBytes), s.Status().CapBytes)
}

func TestStoreOnAReadOnlyDiskKeepsGamesInMemory(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a non-root Unix user: root writes through read-only modes")
	}
	dir := filepath.Join(t.TempDir(), "games")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o555))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o755) })
	gs := games(t, 2)
	s := Open(Options{Dir: dir})
	require.Error(t, s.Add(gs[0]))
	st := s.Status()
	assert.False(t, st.OK)
	assert.Contains(t, st.Problem, "permission denied")
	assert.Equal(t, 1, st.Unsaved)
	got, err := s.Get(gs[0].ID)
	require.NoError(t, err, "an unsaved game is still shown")
	assert.Equal(t, gs[0], got)

	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, s.Add(gs[1]))
	st = s.Status()
	assert.True(t, st.OK)
	assert.Equal(t, 0, st.Unsaved)
	assert.Equal(t, 2, Open(Options{Dir: dir}).Status().Games, "the kept game was written once the disk took it")
}

func TestStoreOnAMissingDisk(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	s := Open(Options{Dir: filepath.Join(file, "games")})
	assert.False(t, s.Status().OK)
	require.Error(t, s.Add(games(t, 1)[0]))
	assert.Equal(t, 1, s.Status().Games)
}

func TestAppendFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	gs := games(t, 3)
	require.NoError(t, AppendFile(path, gs[:2]...))
	require.NoError(t, AppendFile(path, gs[2]))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 3)
	for i, l := range lines {
		g, err := ParseLine([]byte(l))
		require.NoError(t, err)
		assert.Equal(t, gs[i], g)
	}
}

// FuzzParseLine: the record decoder never panics, and whatever it
// accepts is within Check's bounds, replays, and reads back.
func FuzzParseLine(f *testing.F) {
	g := games(f, 1)[0]
	line, _ := g.MarshalLine()
	f.Add(line)
	f.Add(bytes.Replace(line, []byte(`"blocked":[]`), []byte(`"blocked":[0,0,0,0]`), 1))
	f.Add(bytes.Replace(line, []byte(`"name":"house"`), []byte(`"name":"`+strings.Repeat("\\u00e9", 70)+`"`), 1))
	f.Add([]byte(`{"schema":1,"id":"1-0-1","mode":"std","board_size":8,"start":{"board":[],"turn":1}}`))
	f.Add([]byte(`{"schema":1,"id":"1-0-1","mode":"octagon","board_size":10,"moves":[{"color":1,"move":99}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := ParseLine(b)
		if err != nil {
			if !errors.Is(err, ErrBadGame) {
				t.Fatalf("an error that is not ErrBadGame: %v", err)
			}
			return
		}
		mode, err := othello.ParseMode(g.Mode)
		if err != nil {
			t.Fatalf("accepted mode %q", g.Mode)
		}
		if len(g.Blocked) != len(mode.BlockedSquares()) || len(g.Moves) > MaxMoves(mode) ||
			len(g.Start.Board) != mode.Squares() || len(g.Start.Opening) > mode.Squares() {
			t.Fatalf("accepted lengths: %d blocked, %d moves, %d cells, %d opening",
				len(g.Blocked), len(g.Moves), len(g.Start.Board), len(g.Start.Opening))
		}
		// Whatever is accepted replays, and GGF never panics.
		if _, err := g.Replay(); err != nil {
			t.Fatalf("accepted a game that does not replay: %v", err)
		}
		_, _ = g.GGF()
		_ = g.Summary()
		back, err := g.MarshalLine()
		if err != nil || len(back) > MaxLineBytes {
			t.Fatalf("an accepted game writes %d bytes (%v)", len(back), err)
		}
		if _, err := ParseLine(back); err != nil {
			t.Fatalf("an accepted game does not read back: %v", err)
		}
	})
}
