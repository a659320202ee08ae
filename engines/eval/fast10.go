package eval

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
