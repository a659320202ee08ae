package othello

import "math/bits"

// Bits is a set of squares: bit i stands for square i. Squares 0–63 are in Lo
// and 64–99 (10×10 only) in Hi, so one type serves both board sizes.
type Bits struct {
	Lo, Hi uint64
}

// Bit returns the set holding only square sq (0 ≤ sq < 128).
func Bit(sq int) Bits {
	if sq < 64 {
		return Bits{Lo: 1 << uint(sq)}
	}
	return Bits{Hi: 1 << uint(sq-64)}
}

// Has reports whether square sq is in the set.
func (b Bits) Has(sq int) bool {
	if sq < 0 || sq >= 128 {
		return false
	}
	if sq < 64 {
		return b.Lo>>uint(sq)&1 != 0
	}
	return b.Hi>>uint(sq-64)&1 != 0
}

// IsZero reports whether the set is empty.
func (b Bits) IsZero() bool { return b.Lo|b.Hi == 0 }

// Count returns the number of squares in the set.
func (b Bits) Count() int { return bits.OnesCount64(b.Lo) + bits.OnesCount64(b.Hi) }

// And returns the intersection b ∩ c.
func (b Bits) And(c Bits) Bits { return Bits{b.Lo & c.Lo, b.Hi & c.Hi} }

// Or returns the union b ∪ c.
func (b Bits) Or(c Bits) Bits { return Bits{b.Lo | c.Lo, b.Hi | c.Hi} }

// AndNot returns b without the squares of c.
func (b Bits) AndNot(c Bits) Bits { return Bits{b.Lo &^ c.Lo, b.Hi &^ c.Hi} }

// Xor returns the symmetric difference of b and c.
func (b Bits) Xor(c Bits) Bits { return Bits{b.Lo ^ c.Lo, b.Hi ^ c.Hi} }

// First returns the lowest square in the set, or -1 when it is empty.
func (b Bits) First() int {
	if b.Lo != 0 {
		return bits.TrailingZeros64(b.Lo)
	}
	if b.Hi != 0 {
		return 64 + bits.TrailingZeros64(b.Hi)
	}
	return -1
}

// Squares returns the squares of the set in increasing order, never nil.
func (b Bits) Squares() []int {
	out := make([]int, 0, b.Count())
	for lo := b.Lo; lo != 0; lo &= lo - 1 {
		out = append(out, bits.TrailingZeros64(lo))
	}
	for hi := b.Hi; hi != 0; hi &= hi - 1 {
		out = append(out, 64+bits.TrailingZeros64(hi))
	}
	return out
}

// shl shifts the set towards higher squares by n (0 < n < 64).
func (b Bits) shl(n uint) Bits {
	return Bits{Lo: b.Lo << n, Hi: b.Hi<<n | b.Lo>>(64-n)}
}

// shr shifts the set towards lower squares by n (0 < n < 64).
func (b Bits) shr(n uint) Bits {
	return Bits{Lo: b.Lo>>n | b.Hi<<(64-n), Hi: b.Hi >> n}
}
