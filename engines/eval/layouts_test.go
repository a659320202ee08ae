package eval

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// The layout IDs of the files made before the 8×8 mobility features: the
// generation-1 8×8 files (std's 12 phases, anti's and reversi's 6) and every
// 10×10 file. A change to these shapes would orphan the embedded weights.
const (
	idStd8NoMobility = 0x662de7ea
	idSix8NoMobility = 0x8f958a84
	id10WithMobility = 0x74dc05e8
	// layouts8 is the number of layouts an 8×8 file may have.
	layouts8 = 2
)

func TestLayoutsOfEveryMode(t *testing.T) {
	old := map[othello.Mode]uint32{othello.Std: idStd8NoMobility, othello.Anti: idSix8NoMobility, othello.Reversi: idSix8NoMobility}
	for _, m := range othello.AllModes() {
		ls := Layouts(m)
		assert.Equal(t, ls[0].ID(), LayoutFor(m).ID(), "%s: new fits use the first layout", m)
		assert.True(t, LayoutFor(m).Mobility(), "%s: new fits have the mobility features", m)
		if m.Size() == 10 {
			require.Len(t, ls, 1, m)
			assert.Equal(t, uint32(id10WithMobility), ls[0].ID(), "%s: the 10×10 layout is unchanged", m)
			continue
		}
		require.Len(t, ls, layouts8, m)
		assert.False(t, ls[1].Mobility(), m)
		assert.Equal(t, old[m], ls[1].ID(), "%s: generation 1's layout keeps its ID", m)
		assert.NotEqual(t, ls[1].ID(), ls[0].ID(), "%s: the mobility features change the ID", m)
		assert.Equal(t, ls[1].PerPhase()+2*mobRange+2*potRange, ls[0].PerPhase(), m)
		assert.Equal(t, ls[1].NumFeatures()+4, ls[0].NumFeatures(), m)
		for _, l := range ls {
			require.NotNil(t, LayoutByID(m, l.ID()))
			assert.Equal(t, l.ID(), LayoutByID(m, l.ID()).ID())
		}
	}
	assert.Nil(t, LayoutByID(othello.Std, idSix8NoMobility), "std has 12 phases, not 6")
	assert.Nil(t, LayoutByID(othello.Grand, idStd8NoMobility))
}

func TestEmbeddedFilesLoadWithTheirLayout(t *testing.T) {
	// Every embedded file names a layout its mode knows and loads as it:
	// generation 1's 8×8 files (no mobility features) beside generation 2's.
	for _, m := range othello.AllModes() {
		data, err := fs.ReadFile(embedded, "weights/"+WeightsFile(m))
		require.NoError(t, err)
		var w Weights
		require.NoError(t, w.UnmarshalBinary(data), m)
		l, err := w.Layout()
		require.NoError(t, err)
		require.NotNil(t, LayoutByID(m, w.LayoutID), m)
		p, err := NewPattern(&w)
		require.NoError(t, err)
		assert.Equal(t, l.ID(), p.layout.ID(), m)
	}
}

func TestOld8x8LayoutScoresUnchanged(t *testing.T) {
	// Weights of generation 1's 8×8 layout score the positions of 20 random
	// games exactly as the build before the mobility features (39cb9ec) did
	// with the same weights (randomWeights of seed 26, then its only 8×8
	// layout): the scores' FNV-1a digest was recorded there.
	cases := []struct {
		mode   othello.Mode
		n      int
		digest uint64
	}{
		{othello.Std, 1206, 0xc3d5629e54ae7737},
		{othello.Anti, 1210, 0x550c6df0cca717fc},
		{othello.Reversi, 1280, 0xde1c8bb042ea643b},
	}
	for _, c := range cases {
		l := Layouts(c.mode)[1]
		require.False(t, l.Mobility())
		e, err := NewPattern(randomWeightsOf(t, l, c.mode, 26))
		require.NoError(t, err)
		h := fnv.New64a()
		r := rand.New(rand.NewPCG(26, uint64(c.mode)))
		n := 0
		for range 20 {
			for _, pos := range randomGame(c.mode, r) {
				p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
				s := e.Score8(p.Lo, o.Lo, othello.ReversiCap-pos.Placed.Of(pos.Turn),
					othello.ReversiCap-pos.Placed.Of(pos.Turn.Opponent()))
				fmt.Fprintf(h, "%d,", s)
				n++
			}
		}
		assert.Equal(t, c.n, n, c.mode)
		assert.Equal(t, c.digest, h.Sum64(), "%s: the scores differ from 39cb9ec's", c.mode)
	}
}

func TestUnknownLayoutRefused(t *testing.T) {
	w := randomWeights(t, othello.Std, 4)
	w.LayoutID = 0xdeadbeef
	_, err := NewPattern(w)
	assert.ErrorIs(t, err, ErrUnknownLayout)
	_, err = w.MarshalBinary()
	assert.ErrorIs(t, err, ErrUnknownLayout)

	good, err := randomWeights(t, othello.Reversi, 5).MarshalBinary()
	require.NoError(t, err)
	bad := rewrap(t, good, func(b []byte) []byte { b[10], b[11], b[12], b[13] = 0xef, 0xbe, 0xad, 0xde; return resum(b) })
	var back Weights
	err = back.UnmarshalBinary(bad)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnknownLayout)
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "layout id deadbeef is none of this build's reversi layouts")
	assert.Contains(t, err.Error(), fmt.Sprintf("%08x", uint32(idSix8NoMobility)), "the message lists the known IDs")
}

func TestDequantize(t *testing.T) {
	// Generation 1's 8×8 weights start a fit of the layout with the
	// mobility features: the same evaluation, the mobility tables at 0.
	for _, m := range []othello.Mode{othello.Std, othello.Reversi} {
		ls := Layouts(m)
		old := randomWeightsOf(t, ls[1], m, 12)
		w, err := ls[0].Dequantize(old)
		require.NoError(t, err)
		back, err := ls[0].Quantize(m, w)
		require.NoError(t, err)
		a, err := NewPattern(old)
		require.NoError(t, err)
		b, err := NewPattern(back)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(13, uint64(m)))
		for _, pos := range randomGame(m, r) {
			p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
			require.Equal(t, score(a, p, o, 9, 9), score(b, p, o, 9, 9), "%s\n%v", m, pos)
		}
		// Its own layout round-trips, mobility tables included.
		same, err := ls[0].Dequantize(back)
		require.NoError(t, err)
		assert.Equal(t, w, same)
	}
	_, err := LayoutFor(othello.Std).Dequantize(randomWeights(t, othello.Anti, 1))
	assert.ErrorContains(t, err, "other patterns or phases", "anti's 6 phases are not std's 12")
}
