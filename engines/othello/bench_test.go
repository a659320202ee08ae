package othello

import "testing"

// benchPerft reports perft leaves per second ("nodes/s") for one position.
func benchPerft(b *testing.B, pos Position, depth int) {
	var n uint64
	for b.Loop() {
		n = Perft(pos, depth)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "nodes/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkPerftStd11 is the std perft to depth 11 (212,258,800 leaves),
// single thread, counting the last ply by population count.
func BenchmarkPerftStd11(b *testing.B) { benchPerft(b, New(Std), 11) }

// BenchmarkPerftStd9 is a shorter std perft for quick comparisons.
func BenchmarkPerftStd9(b *testing.B) { benchPerft(b, New(Std), 9) }

// BenchmarkPerftGrand9 is a 10×10 perft from grand's start (3,045,812 leaves).
func BenchmarkPerftGrand9(b *testing.B) { benchPerft(b, New(Grand), 9) }

// BenchmarkPerftOctagon9 is the same on octagon's board.
func BenchmarkPerftOctagon9(b *testing.B) { benchPerft(b, New(Octagon), 9) }

// BenchmarkPerftReversi11 is classic reversi from the empty board.
func BenchmarkPerftReversi11(b *testing.B) { benchPerft(b, New(Reversi), 11) }
