package search

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestFlipsFast8MatchesFlips8 compares flipsFast8 with othello.Flips8 on
// every square of random boards of every density, plus the empty and full
// extremes.
func TestFlipsFast8MatchesFlips8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	boards := [][2]uint64{{0, 0}, {0, ^uint64(0)}, {^uint64(0), 0}, {1, ^uint64(1)}}
	for i := 0; i < 20000; i++ {
		a, b := rng.Uint64(), rng.Uint64()
		switch i % 4 {
		case 1:
			a &= rng.Uint64()
		case 2:
			b |= rng.Uint64()
		case 3:
			a &= rng.Uint64() & rng.Uint64()
		}
		boards = append(boards, [2]uint64{a &^ b, b})
	}
	for _, bd := range boards {
		p, o := bd[0], bd[1]
		for sq := 0; sq < 64; sq++ {
			// Flips8 does not check that sq is empty; neither does flipsFast8.
			require.Equal(t, othello.Flips8(p, o, sq), flipsFast8(p, o, sq), "p %#x o %#x sq %d", p, o, sq)
		}
	}
}

func BenchmarkFlipsFast8(b *testing.B) {
	p, o := uint64(0x0000_0810_3C18_0000), uint64(0x0018_2408_0024_1800)
	var s uint64
	for i := 0; b.Loop(); i++ {
		s += flipsFast8(p, o, i&63)
	}
	_ = s
}

func BenchmarkFlips8(b *testing.B) {
	p, o := uint64(0x0000_0810_3C18_0000), uint64(0x0018_2408_0024_1800)
	var s uint64
	for i := 0; b.Loop(); i++ {
		s += othello.Flips8(p, o, i&63)
	}
	_ = s
}
