package eval

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// randomWeights returns weights of mode from random canonical values, as a
// fit makes them (symmetric twins share a value).
func randomWeights(t testing.TB, mode othello.Mode, seed uint64) *Weights {
	return randomWeightsOf(t, LayoutFor(mode), mode, seed)
}

// randomWeightsOf is randomWeights of one of the mode's layouts.
func randomWeightsOf(t testing.TB, l *Layout, mode othello.Mode, seed uint64) *Weights {
	r := rand.New(rand.NewPCG(seed, 7))
	w := make([]float32, l.NumPhases()*l.PerPhase())
	for i := range w {
		w[i] = float32(r.NormFloat64() * 3)
	}
	q, err := l.Quantize(mode, w)
	require.NoError(t, err)
	return q
}

// randomGame returns the positions of a random game of mode.
func randomGame(mode othello.Mode, r *rand.Rand) []othello.Position {
	pos := othello.New(mode)
	var out []othello.Position
	for !pos.GameOver() {
		legal := pos.LegalMoves()
		mv := othello.Pass
		if len(legal) > 0 {
			mv = legal[r.IntN(len(legal))]
		}
		pos, _ = pos.Play(mv)
		out = append(out, pos)
	}
	return out
}

// transform returns b mapped by the k-th symmetry of an n×n board.
func transform(b othello.Bits, k, n int) othello.Bits {
	var out othello.Bits
	for _, sq := range b.Squares() {
		r, c := symmetry(k, n, sq/n, sq%n)
		out = out.Or(othello.Bit(r*n + c))
	}
	return out
}

func score(e *Pattern, p, o othello.Bits, pl, ol int) int {
	if e.mode.Size() == 10 {
		return e.Score10(p, o)
	}
	return e.Score8(p.Lo, o.Lo, pl, ol)
}

func TestWeightsRoundTrip(t *testing.T) {
	for _, m := range othello.AllModes() {
		for _, l := range Layouts(m) {
			t.Run(fmt.Sprintf("%s/%08x", m, l.ID()), func(t *testing.T) {
				w := randomWeightsOf(t, l, m, uint64(m))
				require.Equal(t, l.ID(), w.LayoutID)
				data, err := w.MarshalBinary()
				require.NoError(t, err)
				var back Weights
				require.NoError(t, back.UnmarshalBinary(data))
				assert.Equal(t, w.Mode, back.Mode)
				assert.Equal(t, l.ID(), back.LayoutID)
				assert.Equal(t, w.W, back.W)
			})
		}
	}
}

// rewrap decompresses a weights file, lets edit change the payload and
// compresses it again.
func rewrap(t *testing.T, data []byte, edit func([]byte) []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)
	raw = edit(raw)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err = zw.Write(raw)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// resum fixes the checksum after an edit of the header.
func resum(raw []byte) []byte {
	body := raw[:len(raw)-4]
	binary.LittleEndian.PutUint32(raw[len(raw)-4:], crc32.ChecksumIEEE(body))
	return raw
}

func TestWeightsCorrupt(t *testing.T) {
	good, err := randomWeights(t, othello.Anti, 1).MarshalBinary()
	require.NoError(t, err)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "corrupt weights file"},
		{"not gzip", []byte("FBPW not compressed"), "corrupt weights file"},
		{"truncated", good[:len(good)/2], "decompress"},
		{"weight changed", rewrap(t, good, func(b []byte) []byte { b[100] ^= 1; return b }), "checksum"},
		{"short payload", rewrap(t, good, func(b []byte) []byte { return b[:10] }), "shorter than the header"},
		{"magic", rewrap(t, good, func(b []byte) []byte { b[0] = 'X'; return resum(b) }), "bad magic"},
		{"version", rewrap(t, good, func(b []byte) []byte { b[4] = 9; return resum(b) }), "version 9"},
		{"mode", rewrap(t, good, func(b []byte) []byte { b[6] = 42; return resum(b) }), "unknown mode"},
		{"layout", rewrap(t, good, func(b []byte) []byte { b[10] ^= 0xFF; return resum(b) }), "none of this build's anti layouts"},
		{"other mode's layout", rewrap(t, good, func(b []byte) []byte { b[6] = byte(othello.Grand); return resum(b) }), "none of this build's grand layouts"},
		{"phases", rewrap(t, good, func(b []byte) []byte { b[8]++; return resum(b) }), "is not this build's"},
		{"weights cut", rewrap(t, good, func(b []byte) []byte {
			b = append(b[:len(b)-10], 0, 0, 0, 0)
			return resum(b)
		}), "weight bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w Weights
			err := w.UnmarshalBinary(c.data)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrCorrupt)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

func FuzzWeightsUnmarshal(f *testing.F) {
	good, err := randomWeights(f, othello.Reversi, 2).MarshalBinary()
	require.NoError(f, err)
	f.Add(good)
	f.Add(good[:40])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var w Weights
		if err := w.UnmarshalBinary(data); err != nil {
			assert.ErrorIs(t, err, ErrCorrupt)
			return
		}
		_, err := NewPattern(&w)
		assert.NoError(t, err)
	})
}

func TestPatternSymmetricPositionsScoreAlike(t *testing.T) {
	for _, m := range othello.AllModes() {
		t.Run(m.String(), func(t *testing.T) {
			e, err := NewPattern(randomWeights(t, m, 3+uint64(m)))
			require.NoError(t, err)
			r := rand.New(rand.NewPCG(5, uint64(m)))
			n := m.Size()
			checked, games := 0, 4
			if testing.Short() {
				games = 2
			}
			for g := 0; g < games; g++ {
				for _, pos := range randomGame(m, r) {
					p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
					pl, ol := 60-pos.Placed.Of(pos.Turn), 50-pos.Placed.Of(pos.Turn.Opponent())
					want := score(e, p, o, pl, ol)
					for k := 1; k < 8; k++ {
						require.Equal(t, want, score(e, transform(p, k, n), transform(o, k, n), pl, ol),
							"symmetry %d of\n%v", k, pos)
					}
					checked++
				}
			}
			assert.Greater(t, checked, 50)
		})
	}
}

func TestPatternScoreIsSumOfFeatures(t *testing.T) {
	// The evaluator's fast paths agree with the features a fit trains on,
	// in every mode and every layout a file of the mode may have.
	games := 12
	if testing.Short() {
		games = 3
	}
	for _, m := range othello.AllModes() {
		for _, l := range Layouts(m) {
			t.Run(fmt.Sprintf("%s/mobility=%v", m, l.Mobility()), func(t *testing.T) {
				checkScoreIsSumOfFeatures(t, m, l, games)
			})
		}
	}
}

// checkScoreIsSumOfFeatures compares the evaluation of random weights of
// layout l with the sum of the weights of its reference features, on the
// positions of random games.
func checkScoreIsSumOfFeatures(t *testing.T, m othello.Mode, l *Layout, games int) {
	w := randomWeightsOf(t, l, m, 9)
	e, err := NewPattern(w)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(6, uint64(m)))
	buf := make([]int32, l.NumFeatures())
	checked := 0
	for range games {
		for _, pos := range randomGame(m, r) {
			p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
			pl, ol := 32-pos.Placed.Of(pos.Turn), 32-pos.Placed.Of(pos.Turn.Opponent())
			if m.Size() == 10 {
				pl, ol = 1<<20, 1<<20 // Score10 takes the cap table's middle entry
			}
			for _, canon := range []bool{false, true} {
				ph := l.Features(p, o, pl, ol, canon, buf)
				sum := 0
				for _, x := range buf {
					sum += int(w.W[ph*l.PerPhase()+int(x)])
				}
				sum = max(-e.limit, min(e.limit, sum))
				require.Equal(t, sum, score(e, p, o, pl, ol), "%s canon=%v\n%v", m, canon, pos)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 50*games)
}

func TestLayoutInstances(t *testing.T) {
	// Each pattern instance is a distinct square set, and the instances of
	// a class are closed under the board's symmetries.
	for _, m := range []othello.Mode{othello.Std, othello.Grand} {
		l := LayoutFor(m)
		sets := map[uint64]int{}
		for _, in := range l.instances {
			k := squareSetKey(in.squares)
			_, dup := sets[k]
			require.False(t, dup, "instance %v twice", in.squares)
			sets[k] = in.class
		}
		for _, in := range l.instances {
			for k := 0; k < 8; k++ {
				img := make([]uint8, len(in.squares))
				for i, s := range in.squares {
					r, c := symmetry(k, l.size, int(s)/l.size, int(s)%l.size)
					img[i] = uint8(r*l.size + c)
				}
				cl, ok := sets[squareSetKey(img)]
				require.True(t, ok, "image %d of %v", k, in.squares)
				require.Equal(t, in.class, cl)
			}
		}
	}
	assert.Len(t, LayoutFor(othello.Std).instances, 46)
	assert.Len(t, LayoutFor(othello.Grand).instances, 58)
}
