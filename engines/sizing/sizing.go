// Package sizing chooses the memory and thread settings of the external
// engines (Edax's -h and -n, Egaroucid's -hash and -t) from the machine
// they run on, so that every engine process of the bot fits together in a
// bound that leaves the rest of the system working, down to a 512 MiB
// Raspberry Pi Zero 2 W.
//
// The bound ([Machine.Bound]) is what all external engine processes may
// take together: 60 % of the memory, and never more than the memory less
// [Reserve] (the operating system, flipbot with its built-in engine, the
// page cache of the binaries). Each process gets an equal share of it for
// the legs that may run at once (two per match); its table is the largest
// whose estimated resident size ([Plan.RSS]) fits in the share. The
// estimates are the resident sizes measured on this project's build VM
// (README of engines/): a fixed part (the program and its unpacked
// evaluation) and so many bytes per table entry.
//
// One file, sizing.go ([Machine], [Plan]). It imports the standard library
// only, nothing of the module.
package sizing

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// MiB is a mebibyte.
const MiB = 1 << 20

// Reserve is the memory kept for everything but the external engines.
const Reserve = 320 * MiB

// Machine is what the settings are chosen from.
type Machine struct {
	// Memory is the total usable memory in bytes (MemTotal).
	Memory uint64
	// Cores is the number of CPUs the bot may use.
	Cores int
}

// Detect reads the machine's memory from /proc/meminfo (Linux) and its
// cores from the Go runtime. Without /proc/meminfo it assumes 1 GiB.
func Detect() Machine {
	m := Machine{Memory: 1 << 30, Cores: runtime.NumCPU()}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return m
	}
	defer f.Close()
	if total, err := ParseMemTotal(f); err == nil {
		m.Memory = total
	}
	return m
}

// ErrNoMemTotal is returned by ParseMemTotal for input without a usable
// MemTotal line.
var ErrNoMemTotal = errors.New("no MemTotal line in meminfo")

// ParseMemTotal reads the MemTotal line ("MemTotal:  948304 kB") of
// /proc/meminfo and returns it in bytes.
func ParseMemTotal(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(k) != "MemTotal" {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 || len(f) > 2 || (len(f) == 2 && f[1] != "kB") {
			return 0, fmt.Errorf("meminfo MemTotal %q: %w", strings.TrimSpace(v), ErrNoMemTotal)
		}
		kb, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || kb == 0 || kb > 1<<44 {
			return 0, fmt.Errorf("meminfo MemTotal %q: %w", f[0], ErrNoMemTotal)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("read meminfo: %w", err)
	}
	return 0, ErrNoMemTotal
}

// Bound is the memory all external engine processes of the bot may take
// together: 60 % of the memory, at most the memory less Reserve.
func (m Machine) Bound() uint64 {
	b := m.Memory / 10 * 6
	if m.Memory <= Reserve {
		return 0
	}
	return min(b, m.Memory-Reserve)
}

// LegThreads is the core share of one leg: the two legs of a match think
// at once, so half the cores, at least one.
func (m Machine) LegThreads() int {
	return max(1, m.Cores/2)
}

// Plan is the settings of one engine process.
type Plan struct {
	// Threads is the search threads (Edax -n, Egaroucid -t).
	Threads int
	// Table is the table size setting: Edax's -h (log2 of the entries) or
	// Egaroucid's -hash level (log2 of the entries).
	Table int
	// RSS is the estimated resident size of the process with Table.
	RSS uint64
	// Share is the memory this process may take (Bound / legs).
	Share uint64
	// Fits reports whether RSS is within Share; when false, Table is the
	// smallest allowed and the process would still exceed its share.
	Fits bool
}

// model is an engine's resident size: Base bytes plus Entry bytes per
// table entry (2^Table entries), for tables Min..Max.
type model struct {
	base, entry uint64
	min, max    int
}

// The measured models (engines/README.md, "External engines"; the
// measurements: docs/measurements/2026-12-02-edax-egaroucid-memory-and-start-up.md).

// edaxModel is Edax 4.6: 57.7 MiB with its evaluation unpacked, 26.3 bytes
// per hash entry (the hash table and its PV table); -h 10 to 22 (its
// default).
func edaxModel() model { return model{base: 58 * MiB, entry: 27, min: 10, max: 22} }

// egaroucidModel is Egaroucid for Console 7.8 built low-memory (see
// EgaroucidBase): a 24-byte Hash_node; -hash 10 to EgaroucidMaxTable.
func egaroucidModel() model {
	return model{base: EgaroucidBase, entry: 24, min: 10, max: EgaroucidMaxTable}
}

// EgaroucidMaxTable is the largest -hash level given to Egaroucid however
// much memory there is (its own default is 25): the low-memory build writes
// its whole table at start, which took 3.8–4.4 s of CPU at level 25 against
// 2.1–2.5 s at 23 on the build VM (docs/measurements/2026-12-04-*), for a
// table of 8 M entries against 33 M, where the moves of a 60 s match search
// up to about 10 M nodes (the strength lost was not measured). The stock
// build starts as slowly at any level (its 2^25-entry table is static).
const EgaroucidMaxTable = 23

// EgaroucidBase is the peak resident size of Egaroucid for Console 7.8
// with the smallest table (-hash 10), built low-memory: with its table on
// the heap (TT_USE_STACK false) and without the unused 384 MiB tree of its
// old time-limited search (N_MAX_NODES_AI_TL 1). Measured 227 MiB: its
// evaluation (147 MiB of the 2 × 60 × 16 × 3^10 int16 array are written)
// and, while loading, the 70 MiB unpacked file. The stock build takes
// 1.33 GiB whatever -hash says (a fixed 2^25-entry table and that tree,
// both constructed at start).
const EgaroucidBase = 228 * MiB

// Edax returns the settings of one Edax process when legs Edax processes
// may run at once.
func Edax(m Machine, legs int) Plan { return edaxModel().plan(m, legs) }

// Egaroucid returns the settings of one Egaroucid process when legs
// Egaroucid processes may run at once.
func Egaroucid(m Machine, legs int) Plan { return egaroucidModel().plan(m, legs) }

// Pairs returns how many processes of an engine to run at most, in whole
// matches (two legs each), when up to legs of them could be wanted at once:
// the most, up to legs rounded up to a pair, whose plan fits, and that plan.
// When not even one pair fits it returns 0 and the plan of one pair. The
// appliance sizes Egaroucid with it and plays the std matches beyond those
// pairs with the built-in engine, rather than giving up on Egaroucid
// because every match at once would not fit (a 1 GB Pi with two matches at
// once: one pair of Egaroucid at -hash 20).
func Pairs(m Machine, legs int, plan func(Machine, int) Plan) (int, Plan) {
	for n := 2 * max(1, (legs+1)/2); n >= 2; n -= 2 {
		if p := plan(m, n); p.Fits {
			return n, p
		}
	}
	return 0, plan(m, 2)
}

// EdaxRSS and EgaroucidRSS return the estimated resident size of one
// process with the table setting t.
func EdaxRSS(t int) uint64 { return edaxModel().rss(t) }

// EgaroucidRSS: see EdaxRSS.
func EgaroucidRSS(t int) uint64 { return egaroucidModel().rss(t) }

// EdaxTable and EgaroucidTable convert a table size in MiB (the --hash-mb
// flag) into the engine's table setting: the largest whose table part fits
// in mb, within the engine's range.
func EdaxTable(mb int) int { return edaxModel().table(uint64(mb) * MiB) }

// EgaroucidTable: see EdaxTable.
func EgaroucidTable(mb int) int { return egaroucidModel().table(uint64(mb) * MiB) }

func (md model) rss(t int) uint64 { return md.base + md.entry<<uint(t) }

func (md model) table(bytes uint64) int {
	t := md.min
	for t < md.max && md.entry<<uint(t+1) <= bytes {
		t++
	}
	return t
}

func (md model) plan(m Machine, legs int) Plan {
	legs = max(1, legs)
	share := m.Bound() / uint64(legs)
	p := Plan{Threads: m.LegThreads(), Share: share, Table: md.min}
	if share > md.base {
		p.Table = md.table(share - md.base)
	}
	p.RSS = md.rss(p.Table)
	p.Fits = p.RSS <= share
	return p
}
