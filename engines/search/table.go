package search

import (
	"math/bits"
	"sync/atomic"
)

// Kinds of table entries: a midgame bound in eval units at a depth, an
// exact-solver bound in discs, or a bound in discs of a selective pass of
// the solver (endcut.go), which only a pass of the same or a lower
// selectivity trusts (entry.level).
const (
	kindMid    = 1
	kindEnd    = 2
	kindEndSel = 3
)

// noMove marks an entry without a best move.
const noMove = 0xFF

// table is the transposition table shared by every thread of an engine. An
// entry is two words, the key XORed with the data and the data, written and
// read with atomic operations: a torn entry (one word from one write, one
// from another) fails the key check and reads as a miss, so no lock is
// needed. Buckets hold two entries: the first keeps the deepest result, the
// second is always replaced.
type table struct {
	words []atomic.Uint64
	mask  uint64 // bucket index mask
}

// newTable returns a table of about mb MiB (at least 1 MiB worth of buckets).
func newTable(mb int) *table {
	if mb < 1 {
		mb = 1
	}
	buckets := uint64(mb) << 20 / 32
	// Round down to a power of two.
	buckets = 1 << (63 - bits.LeadingZeros64(buckets))
	t := &table{words: make([]atomic.Uint64, buckets*4), mask: buckets - 1}
	adviseHugePages(t.words)
	return t
}

// entry is a decoded table entry.
type entry struct {
	lower, upper int
	move         int
	depth        int
	kind         int
	// level is the selectivity of a kindEndSel entry (1 … endLevels).
	level int
}

// pack encodes an entry in one word: lower and upper as int16, the move, the
// depth, the kind and the level in a byte each.
func pack(e entry) uint64 {
	return uint64(uint16(int16(e.lower))) | uint64(uint16(int16(e.upper)))<<16 |
		uint64(uint8(e.move))<<32 | uint64(uint8(e.depth))<<40 | uint64(uint8(e.kind))<<48 | uint64(uint8(e.level))<<56
}

func unpack(d uint64) entry {
	mv := int(uint8(d >> 32))
	if mv == noMove {
		mv = -1
	}
	return entry{
		lower: int(int16(uint16(d))),
		upper: int(int16(uint16(d >> 16))),
		move:  mv,
		depth: int(uint8(d >> 40)),
		kind:  int(uint8(d >> 48)),
		level: int(uint8(d >> 56)),
	}
}

// window applies the entry to a search of (alpha, beta) at depth: it returns
// a cutoff value and true, or the window narrowed by the entry's bounds.
// scale is eval.Disc for a midgame search (eval units: exact bounds are
// scaled, midgame bounds count from the same depth on) and 1 for the exact
// solver (discs: only exact bounds count; a selective pass of the solver
// applies its kindEndSel entries itself, see endWindow). Every search
// function probes through it; it is small enough to be inlined.
func (e entry) window(scale, depth, alpha, beta int) (lo, hi, v int, cut bool) {
	lo, hi = e.lower, e.upper
	switch {
	case e.kind == kindEnd:
		lo, hi = lo*scale, hi*scale
	case e.kind == kindMid && e.depth >= depth && scale != 1:
	default:
		return alpha, beta, 0, false
	}
	switch {
	case lo >= beta:
		return alpha, beta, lo, true
	case hi <= alpha:
		return alpha, beta, hi, true
	case lo == hi:
		return alpha, beta, lo, true
	}
	return max(alpha, lo), min(beta, hi), 0, false
}

// endWindow is window for the exact solver at selectivity level (0: the
// exact pass): exact bounds always apply, the bounds of a selective pass's
// entry only to a pass of the same or a lower selectivity (a higher or
// equal level).
func (e entry) endWindow(level, depth, alpha, beta int) (lo, hi, v int, cut bool) {
	if e.kind == kindEndSel && e.trusted(level) {
		e.kind = kindEnd
	}
	return e.window(1, depth, alpha, beta)
}

// trusted reports whether the entry's bounds are those of an exact solve as
// a solver pass at level sees it (see endWindow).
func (e entry) trusted(level int) bool {
	return e.kind == kindEnd || e.kind == kindEndSel && level > 0 && e.level >= level
}

// probe looks key up and reports the entry found.
func (t *table) probe(key uint64) (entry, bool) {
	i := (key & t.mask) * 4
	for j := uint64(0); j < 4; j += 2 {
		d := t.words[i+j+1].Load()
		if t.words[i+j].Load()^d == key && d != 0 {
			return unpack(d), true
		}
	}
	return entry{}, false
}

// store records a bound for key. The first slot of the bucket keeps the
// deeper of the old and new results; the other result goes to the second.
func (t *table) store(key uint64, e entry) {
	if e.move < 0 {
		e.move = noMove
	}
	d := pack(e)
	i := (key & t.mask) * 4
	old := t.words[i+1].Load()
	oldKey := t.words[i].Load() ^ old
	oldKind := int(uint8(old >> 48))
	if oldKey == key && (e.kind == kindMid && oldKind >= kindEnd || e.kind == kindEndSel && oldKind == kindEnd) {
		// An exact solver's bound outlives any midgame or selective
		// result, a selective one any midgame result.
		return
	}
	if oldKey == key || old == 0 || int(uint8(old>>40))+min(oldKind, kindEnd)*64 <= e.depth+min(e.kind, kindEnd)*64 {
		if oldKey != key && old != 0 {
			// Keep the displaced deep entry in the second slot.
			t.words[i+2].Store(oldKey ^ old)
			t.words[i+3].Store(old)
		}
		t.words[i].Store(key ^ d)
		t.words[i+1].Store(d)
		return
	}
	t.words[i+2].Store(key ^ d)
	t.words[i+3].Store(d)
}

// clear empties the table.
func (t *table) clear() {
	for i := range t.words {
		t.words[i].Store(0)
	}
}

// hash8 mixes an 8×8 position and a salt (mode and reversi caps) into a key.
func hash8(p, o, salt uint64) uint64 {
	h := p*0x9E3779B97F4A7C15 ^ bits.RotateLeft64(o*0xC2B2AE3D27D4EB4F, 29) ^ salt
	h ^= h >> 31
	h *= 0xD6E8FEB86659FD93
	h ^= h >> 32
	return h
}

// hash10 mixes a 10×10 position into a key.
func hash10(pLo, pHi, oLo, oHi, salt uint64) uint64 {
	return hash8(pLo^bits.RotateLeft64(pHi*0xA24BAED4963EE407, 17), oLo^bits.RotateLeft64(oHi*0x9FB21C651E98DF25, 41), salt)
}
