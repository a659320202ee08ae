package othello

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// flipsByRays8 is the previous Flips8, kept as a second implementation to
// check the tables against: the seven rays of the square resolved one by
// one by a lowest-bit step (the downward column and diagonal rays on
// byte-swapped boards), the leftward row ray by a byte table.
func flipsByRays8(p, o uint64, sq int) uint64 {
	r := &testRays8[sq&63]
	f := flipUpRay8(p, o, r.up[0]) | flipUpRay8(p, o, r.up[1]) | flipUpRay8(p, o, r.up[2]) | flipUpRay8(p, o, r.up[3])
	ps, os := bits.ReverseBytes64(p), bits.ReverseBytes64(o)
	f |= bits.ReverseBytes64(flipUpRay8(ps, os, r.sw[0]) | flipUpRay8(ps, os, r.sw[1]) | flipUpRay8(ps, os, r.sw[2]))
	shift := uint(sq) &^ 7 & 63
	x := (r.left &^ o) >> shift & 0xFF
	var high uint64
	if x != 0 {
		high = 1 << uint(bits.Len8(uint8(x))-1)
	}
	out := high << shift & p
	return f | r.left&^(out<<1-1)
}

// flipUpRay8 flips along a ray that runs towards higher squares: the first
// square of the ray that is not the opponent's must be the player's.
func flipUpRay8(p, o, ray uint64) uint64 {
	x := ray &^ o
	out := x & -x & p
	return (out - 1) & ray &^ uint64(int64(out-1)>>63)
}

// testRays8 holds each square's rays for flipsByRays8: +1, +7, +8, +9 as
// they are, −7, −8, −9 byte-swapped, −1 as it is.
var testRays8 = func() (r [64]struct {
	up   [4]uint64
	sw   [3]uint64
	left uint64
}) {
	ray := func(sq, dr, dc int) uint64 {
		var m uint64
		row, col := sq/8+dr, sq%8+dc
		for row >= 0 && row < 8 && col >= 0 && col < 8 {
			m |= 1 << uint(row*8+col)
			row, col = row+dr, col+dc
		}
		return m
	}
	for sq := range r {
		r[sq].up = [4]uint64{ray(sq, 0, 1), ray(sq, 1, -1), ray(sq, 1, 0), ray(sq, 1, 1)}
		r[sq].sw = [3]uint64{
			bits.ReverseBytes64(ray(sq, -1, 1)),
			bits.ReverseBytes64(ray(sq, -1, 0)),
			bits.ReverseBytes64(ray(sq, -1, -1)),
		}
		r[sq].left = ray(sq, 0, -1)
	}
	return r
}()

// randomDiscs8 returns disjoint p and o with about pPct and oPct percent of
// the squares each.
func randomDiscs8(rng *rand.Rand, pPct, oPct int) (p, o uint64) {
	for sq := range 64 {
		switch x := rng.IntN(100); {
		case x < pPct:
			p |= 1 << uint(sq)
		case x < pPct+oPct:
			o |= 1 << uint(sq)
		}
	}
	return p, o
}

// TestFlips8MatchesRays compares Flips8 with the ray-by-ray implementation
// on every empty square of random boards, from sparse ones to boards nearly
// full of the opponent's discs (runs of six to flip on every line).
func TestFlips8MatchesRays(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 38))
	n := 20000
	if testing.Short() {
		n = 4000
	}
	dens := [][2]int{{33, 33}, {10, 80}, {5, 90}, {45, 45}, {20, 20}, {60, 30}}
	checked := 0
	for i := range n {
		d := dens[i%len(dens)]
		p, o := randomDiscs8(rng, d[0], d[1])
		for sq := range 64 {
			if (p|o)>>uint(sq)&1 != 0 {
				continue
			}
			require.Equal(t, flipsByRays8(p, o, sq), Flips8(p, o, sq), "p %#x o %#x sq %d", p, o, sq)
			checked++
		}
	}
	require.Greater(t, checked, n)
}

// FuzzFlips8 compares Flips8 with the ray-by-ray implementation on fuzzed
// boards (p's discs win where the two overlap; the square is emptied).
func FuzzFlips8(f *testing.F) {
	f.Add(uint64(0x0000000810000000), uint64(0x0000001008000000), uint8(19))
	f.Add(uint64(0x8100000000000081), uint64(0x7E7EFFFFFFFF7E7E)&^0x0000001000000000, uint8(36))
	f.Fuzz(func(t *testing.T, p, o uint64, sq uint8) {
		s := int(sq & 63)
		o &^= p
		p &^= 1 << uint(s)
		o &^= 1 << uint(s)
		if got, want := Flips8(p, o, s), flipsByRays8(p, o, s); got != want {
			t.Fatalf("p %#x o %#x sq %d: Flips8 %#x, rays %#x", p, o, s, got, want)
		}
	})
}
