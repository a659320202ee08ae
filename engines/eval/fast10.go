package eval

import "flipbot.dev/flipbot/engines/othello"

//go:generate go test -run ^TestFast10GeneratedIsCurrent$ -update

// The 10×10 fast path: fast10_gen.go (generated from the layout by
// fast10gen_test.go) reads each pattern instance of the 10×10 layout with
// constant shifts and masks. Rows are shifts of the board's two words;
// columns and diagonals are gathered by one carry-free multiplication per
// word (see progression in fast10gen_test.go); corner blocks are a few runs
// of a row or a column. An instance whose digits run against the squares'
// order (a mirrored image) is read forwards with its digits reversed, and
// tri10rev turns that into the index, so no bits are ever reversed.

// tri10[x] reads the 10 bits of x as ternary digits (bit i: digit i is 1).
var tri10 = func() (t [1024]uint16) {
	for x := range t {
		t[x] = uint16(ternary[x])
	}
	return t
}()

// tri10rev[x] is tri10 of x's 10 bits in reverse order: bit 9−i is digit i.
var tri10rev = func() (t [1024]uint16) {
	for x := range t {
		r := 0
		for i := 0; i < 10; i++ {
			r |= (x >> i & 1) << (9 - i)
		}
		t[x] = uint16(ternary[r])
	}
	return t
}()

// mobility10 is Layout.mobility (the four mobility features) given the
// empty playable squares, which Score10 has already counted.
func (l *Layout) mobility10(p, o, empty othello.Bits) [4]int {
	mp := othello.Legal10(p, o, l.blocked).Count()
	mo := othello.Legal10(o, p, l.blocked).Count()
	pp := neighbours10(o).And(empty).Count()
	po := neighbours10(p).And(empty).Count()
	return [4]int{
		l.mob + min(mp, mobRange-1),
		l.mob + mobRange + min(mo, mobRange-1),
		l.mob + 2*mobRange + min(pp, potRange-1),
		l.mob + 2*mobRange + potRange + min(po, potRange-1),
	}
}
