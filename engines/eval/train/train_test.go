package train

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/eval"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// selfPlay makes a few games of mode with shallow players.
func selfPlay(t *testing.T, mode othello.Mode, games int, seed uint64) []Record {
	sp := &SelfPlay{Mode: mode, Depth: 1, Exact: 6, RandomPlies: 6, RandomRate: 0.3, Seed: seed, GamesPerChunk: games}
	eng := search.New(search.Options{Threads: 1, HashMB: 1})
	rng := rand.New(rand.NewPCG(seed, 0))
	var recs []Record
	for g := 0; g < games; g++ {
		got, err := sp.Game(context.Background(), eng, rng)
		require.NoError(t, err)
		recs = append(recs, got...)
	}
	return recs
}

func TestSelfPlayLabels(t *testing.T) {
	for _, m := range othello.AllModes() {
		recs := selfPlay(t, m, 2, 3)
		require.NotEmpty(t, recs, "%s", m)
		last := recs[len(recs)-1]
		for _, r := range recs {
			assert.Zero(t, r.P.And(r.O).Count(), "discs overlap")
			assert.LessOrEqual(t, abs(int(r.Score)), m.Squares())
		}
		// The last position is one move from the end, solved exactly:
		// its label matches the disc count after the best move at most
		// by the board size.
		assert.LessOrEqual(t, abs(int(last.Score)), m.Squares())
	}
}

func TestSelfPlayLabelsFromTheFirstSolve(t *testing.T) {
	// Every position from the first exact solve on is labelled with its
	// own exact score; every earlier one with the first solved position's
	// score (the game's result under perfect play from there), from its
	// own mover's side: the same magnitude.
	ctx := context.Background()
	for _, m := range []othello.Mode{othello.Std, othello.Anti} {
		sp := &SelfPlay{Mode: m, Depth: 1, Exact: 8, RandomPlies: 6, RandomRate: 0.3, Seed: 4, GamesPerChunk: 1}
		eng := search.New(search.Options{Threads: 1, HashMB: 1})
		rng := rand.New(rand.NewPCG(4, uint64(m)))
		for g := 0; g < 3; g++ {
			recs, err := sp.Game(ctx, eng, rng)
			require.NoError(t, err)
			first := -1
			for i, r := range recs {
				if 64-r.P.Or(r.O).Count() > sp.Exact {
					require.Equal(t, -1, first, "%s game %d: a midgame position after the first solve", m, g)
					continue
				}
				if first < 0 {
					first = i
				}
				pos := othello.Position{Mode: m, Black: r.P, White: r.O, Turn: othello.Black}
				res, err := eng.Search(ctx, pos, search.Limits{Exact: true})
				require.NoError(t, err)
				require.Equal(t, int(res.Score), int(r.Score), "%s game %d position %d: its own exact score", m, g, i)
			}
			require.Positive(t, first, "%s game %d: a midgame and a solved part", m, g)
			for i := first - 1; i >= 0; i-- {
				// The next record's mover is this one's opponent when this
				// mover's discs are the next one's opponent's (no pass).
				want := int(recs[i+1].Score)
				if recs[i+1].O.And(recs[i].P) == recs[i].P {
					want = -want
				}
				assert.Equal(t, want, int(recs[i].Score), "%s game %d position %d: the first solve's score, from its mover's side", m, g, i)
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestDataRoundTrip(t *testing.T) {
	recs := selfPlay(t, othello.Reversi, 1, 4)
	path := filepath.Join(t.TempDir(), "x.fbpd")
	require.NoError(t, WriteData(path, othello.Reversi, recs))
	back, err := ReadDataFile(path, othello.Reversi, nil)
	require.NoError(t, err)
	assert.Equal(t, recs, back)
	_, err = ReadDataFile(path, othello.Std, nil)
	assert.ErrorIs(t, err, ErrBadData)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	_, _, err = ReadData(bytes.NewReader(data[:len(data)-3]), nil)
	assert.ErrorIs(t, err, ErrBadData, "truncated record")
	_, _, err = ReadData(bytes.NewReader([]byte("FBPX\x01\x00\x00\x00")), nil)
	assert.ErrorIs(t, err, ErrBadData, "magic")
}

func FuzzReadData(f *testing.F) {
	f.Add([]byte("FBPD\x01\x00\x00\x00"))
	f.Add(append([]byte("FBPD\x01\x00\x04\x00"), make([]byte, recordLen)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, recs, err := ReadData(bytes.NewReader(data), nil)
		if err == nil {
			assert.Equal(t, (len(data)-8)/recordLen, len(recs))
		}
	})
}

func TestFitLowersLoss(t *testing.T) {
	for _, m := range []othello.Mode{othello.Std, othello.Octagon} {
		t.Run(m.String(), func(t *testing.T) {
			recs := selfPlay(t, m, 8, 5)
			require.Greater(t, len(recs), 300)
			f := &Fit{Mode: m, Epochs: 3, LR: 0.05, L2: 1e-3, Seed: 1}
			w, loss, err := f.Run(context.Background(), recs, recs)
			require.NoError(t, err)
			var se, sz float64
			for _, pl := range loss {
				se += pl.RMSE * pl.RMSE * float64(pl.N)
				sz += pl.ZeroRMSE * pl.ZeroRMSE * float64(pl.N)
			}
			assert.Less(t, se, 0.5*sz, "the fit explains the labels better than zero weights")
			// Deterministic for a seed.
			w2, _, err := (&Fit{Mode: m, Epochs: 3, LR: 0.05, L2: 1e-3, Seed: 1}).Run(context.Background(), recs, recs)
			require.NoError(t, err)
			assert.Equal(t, w.W, w2.W)
		})
	}
}

func TestFitEveryLayout(t *testing.T) {
	// A fit makes weights of the layout it is given (the default has the
	// mobility features; the 8×8 one without them is generation 1's), which
	// round-trip through a file and validate with their own layout.
	recs := selfPlay(t, othello.Reversi, 4, 8)
	for _, l := range eval.Layouts(othello.Reversi) {
		t.Run(fmt.Sprintf("mobility=%v", l.Mobility()), func(t *testing.T) {
			f := &Fit{Mode: othello.Reversi, Layout: l, Epochs: 2, LR: 0.05, L2: 1e-3, Seed: 1}
			w, loss, err := f.Run(context.Background(), recs, recs)
			require.NoError(t, err)
			assert.Equal(t, l.ID(), w.LayoutID)
			require.Len(t, w.W, l.NumPhases()*l.PerPhase())
			data, err := w.MarshalBinary()
			require.NoError(t, err)
			var back eval.Weights
			require.NoError(t, back.UnmarshalBinary(data))
			again, err := Validate(&back, recs)
			require.NoError(t, err)
			assert.Equal(t, loss, again)
		})
	}
	_, _, err := (&Fit{Mode: othello.Reversi, Epochs: 1}).Run(context.Background(), recs, nil)
	require.NoError(t, err, "no layout: the default")

	// Zero epochs from generation-1-shaped weights: the same evaluation in
	// the layout with the mobility features.
	old, _, err := (&Fit{Mode: othello.Reversi, Layout: eval.Layouts(othello.Reversi)[1], Epochs: 1, LR: 0.05, Seed: 1}).Run(context.Background(), recs, recs)
	require.NoError(t, err)
	oldLoss, err := Validate(old, recs)
	require.NoError(t, err)
	w, loss, err := (&Fit{Mode: othello.Reversi, Init: old}).Run(context.Background(), recs, recs)
	require.NoError(t, err)
	assert.Equal(t, eval.LayoutFor(othello.Reversi).ID(), w.LayoutID)
	assert.Equal(t, oldLoss, loss)
	_, _, err = (&Fit{Mode: othello.Std, Init: old}).Run(context.Background(), recs, recs)
	assert.ErrorContains(t, err, "initial weights")
}

func TestFitResumes(t *testing.T) {
	recs := selfPlay(t, othello.Anti, 4, 6)
	ckpt := filepath.Join(t.TempDir(), "fit.ckpt")
	whole, _, err := (&Fit{Mode: othello.Anti, Epochs: 3, LR: 0.05, L2: 1e-3, Seed: 2}).Run(context.Background(), recs, nil)
	require.NoError(t, err)
	_, _, err = (&Fit{Mode: othello.Anti, Epochs: 2, LR: 0.05, L2: 1e-3, Seed: 2, Checkpoint: ckpt}).Run(context.Background(), recs, nil)
	require.NoError(t, err)
	resumed, _, err := (&Fit{Mode: othello.Anti, Epochs: 3, LR: 0.05, L2: 1e-3, Seed: 2, Checkpoint: ckpt}).Run(context.Background(), recs, nil)
	require.NoError(t, err)
	assert.Equal(t, whole.W, resumed.W)
	// A checkpoint of another layout is refused.
	_, _, err = (&Fit{Mode: othello.Grand, Epochs: 3, Checkpoint: ckpt}).Run(context.Background(), nil, nil)
	assert.ErrorContains(t, err, "not a checkpoint of this layout")
}

// wthorFile builds a WTHOR file of the given games.
func wthorFile(year int, games ...WthorGame) []byte {
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(games)))
	binary.LittleEndian.PutUint16(b[10:], uint16(year))
	b[12], b[14] = 8, 24
	for _, g := range games {
		r := make([]byte, 68)
		r[6], r[7] = byte(g.BlackDiscs), byte(g.BlackTheory)
		for i, mv := range g.Moves {
			r[8+i] = byte(10*(mv/8+1) + mv%8 + 1)
		}
		b = append(b, r...)
	}
	return b
}

func TestWthorRecords(t *testing.T) {
	// f5 d6 c3 d3 c4: a legal opening.
	moves := []int{4*8 + 5, 5*8 + 3, 2*8 + 2, 2*8 + 3, 3*8 + 2}
	data := wthorFile(2001, WthorGame{BlackDiscs: 40, BlackTheory: 36, Moves: moves})
	f, err := ParseWthor(data)
	require.NoError(t, err)
	require.Len(t, f.Games, 1)
	assert.Equal(t, 2001, f.Year)
	assert.Equal(t, moves, f.Games[0].Moves)
	recs, err := f.Games[0].Records(f.TheoryDepth)
	require.NoError(t, err)
	require.Len(t, recs, 5)
	assert.Equal(t, int8(8), recs[0].Score, "black to move, theoretical 36-28")
	assert.Equal(t, int8(-8), recs[1].Score, "white to move")
	assert.Equal(t, uint64(1<<28|1<<35), recs[0].P.Lo)

	bad := wthorFile(2001, WthorGame{Moves: []int{0}})
	f, err = ParseWthor(bad)
	require.NoError(t, err)
	_, err = f.Games[0].Records(24)
	assert.ErrorIs(t, err, othello.ErrIllegalMove)

	_, err = ParseWthor(data[:30])
	assert.ErrorIs(t, err, ErrBadWthor)
	data[16+8] = 99
	_, err = ParseWthor(data)
	assert.ErrorIs(t, err, ErrBadWthor)
}

func FuzzParseWthor(f *testing.F) {
	f.Add(wthorFile(2000, WthorGame{BlackDiscs: 33, BlackTheory: 32, Moves: []int{37, 43, 18}}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		wf, err := ParseWthor(data)
		if err != nil {
			return
		}
		for i := range wf.Games {
			_, _ = wf.Games[i].Records(wf.TheoryDepth)
		}
	})
}

func TestWthorShared(t *testing.T) {
	if testing.Short() {
		t.Skip("reads ../shared/data/wthor")
	}
	dir := "../../../../shared/data/wthor"
	names, _ := filepath.Glob(filepath.Join(dir, "WTH_19*.wtb"))
	if len(names) == 0 {
		t.Skip("no ../shared/data/wthor beside the repository")
	}
	for _, name := range names[:5] {
		data, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := ParseWthor(data)
		require.NoError(t, err, name)
		for i := range f.Games {
			_, err := f.Games[i].Records(f.TheoryDepth)
			require.NoError(t, err, "%s game %d", name, i)
		}
	}
}

func TestValidateBaselineShapes(t *testing.T) {
	// Validate reports one entry per phase and counts every record.
	recs := selfPlay(t, othello.Grand, 1, 7)
	l := eval.LayoutFor(othello.Grand)
	w := &eval.Weights{Mode: othello.Grand, W: make([]int16, l.NumPhases()*l.PerPhase())}
	loss, err := Validate(w, recs)
	require.NoError(t, err)
	require.Len(t, loss, l.NumPhases())
	n := 0
	for _, pl := range loss {
		n += pl.N
		assert.InDelta(t, pl.ZeroRMSE, pl.RMSE, 1e-9, "zero weights are the zero predictor")
	}
	assert.Equal(t, len(recs), n)
}
