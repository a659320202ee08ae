package record

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"flipbot.dev/flipbot/internal/atomicfile"
)

// DefaultCapBytes is the default size cap of a Store: about 50 MB.
const DefaultCapBytes = 50 << 20

// MinCapBytes is the smallest cap a Store accepts.
const MinCapBytes = 1 << 20

// maxLine is the longest line a Store reads back; longer ones are skipped
// unparsed (and never held whole in memory).
const maxLine = MaxLineBytes

// maxUnsaved is how many games a Store keeps in memory while the disk
// refuses them.
const maxUnsaved = 200

// Options configure a Store.
type Options struct {
	// Dir is the directory of the games files (created when missing).
	Dir string
	// CapBytes caps the files' total size (DefaultCapBytes when 0): the
	// oldest files are deleted first.
	CapBytes int64
	// Logger receives the store's problems (slog.Default() when nil).
	Logger *slog.Logger
	// ReadOnly opens the store for reading only (the `flipbot games`
	// commands that only read): nothing is created, written or deleted,
	// and Add, SaveAnalysis and the rotation of SetCap are refused with
	// an error wrapping ErrReadOnly.
	ReadOnly bool
}

// Store keeps games in append-only JSON-lines files
// (games-000001.jsonl, games-000002.jsonl, …) in one directory.
//
// Each game is one line written with a single write and synced before Add
// returns, so a game is either wholly on disk or not at all: a line cut
// short by a power loss is skipped when read, and the file it ends is never
// appended to again (writing goes on in a new file). Files are only
// appended to, and rotated: a new file starts when the current one would
// pass an eighth of the cap, and the oldest files are deleted while the
// total is over the cap.
//
// A disk that is full, read-only or missing is never fatal: the problem is
// reported by Status, the games are kept in memory (the last 200) and
// written when the disk takes them again.
//
// The analysis of a game (see "Analyses" in the package documentation) is
// kept beside it, in analysis/ID.json, replaced whole and crash-safely
// (SaveAnalysis), read back checked against its game (Analysis), counted
// in the cap and deleted with its game's file; List shows its summary.
//
// The store touches nothing outside its directory and its analysis/: every
// name goes through an os.Root of the directory, a games file or analysis
// that is not a regular file (a symbolic link, a FIFO, a device) is
// skipped unopened or, opened without blocking, refused, analysis/ is used
// only when it is a directory (a symbolic link in its place is refused
// with one log line), and a games file larger than the cap (a sparse one
// too) is refused unread with one log line.
//
// Lists cost what they show: the store keeps the summaries in the lists'
// order and running tallies (see index.go), so that List of a page costs
// the page (a filtered one: a scan of the summaries kept, copying only
// the page) and Overview the opponents, never a copy of every game.
//
// A Store is safe for concurrent use; its mutex guards every field.
type Store struct {
	mu       sync.Mutex
	dir      string
	cap      int64
	readOnly bool
	log      *slog.Logger
	segs     []*segment
	// maxNum is the highest games file number seen, refused files too: a
	// new file is never one that was there.
	maxNum int
	byID   map[string]*entry
	// unsaved are the games the disk refused, oldest first (indexed; seg
	// nil, game set).
	unsaved []*entry
	// order is every game listed, in cmpOrder's order; tally sums them.
	order   []*entry
	tally   tallies
	seq     uint64
	problem string
	skipped int
	loaded  bool
	// anaBytes is the disk space of the analysis files of the games
	// indexed, analysed how many of those games have one.
	anaBytes int64
	analysed int
	// anaRefused notes that analysis/ was refused (logged once).
	anaRefused bool
}

type segment struct {
	num     int
	size    int64
	sealed  bool // a torn tail or a failed write: never appended to again
	entries []*entry
}

type entry struct {
	sum      Summary
	oppLower string // sum.Opponent lower-cased, for the filters
	seq      uint64 // the order indexed
	seg      *segment
	off      int64
	n        int
	// game is the game while the disk refuses it (seg nil).
	game *Game
	// gone marks an entry rotated away, until the index drops it.
	gone bool
	// ana is the summary of the game's analysis (nil: none) and anaSize
	// the disk space of its file.
	ana     *AnalysisSummary
	anaSize int64
}

// StoreStatus describes a Store: where it is, its problem, what it holds.
// It is a plain Go type; the pages and /api/status show it in their own
// JSON form (appliance/state.GameStore).
type StoreStatus struct {
	Dir string
	// OK reports a store without a problem; Problem says what the disk
	// refused.
	OK      bool
	Problem string
	// Games counts the games kept, Unsaved those of them only in memory
	// (the disk refused them), Skipped the lines read back that were not
	// a game.
	Games   int
	Unsaved int
	Skipped int
	// Bytes is the disk space of the games files and analyses, CapBytes
	// its cap, Files the number of games files.
	Bytes    int64
	CapBytes int64
	Files    int
	// Analysed counts the games with an analysis; AnalysisBytes is the
	// size of their files (part of Bytes).
	Analysed      int
	AnalysisBytes int64
}

// Open returns the store of opts.Dir, reading the games already there. It
// does not fail on disk problems: Status reports them.
func Open(opts Options) *Store {
	s := &Store{dir: opts.Dir, cap: opts.CapBytes, log: opts.Logger, readOnly: opts.ReadOnly, byID: map[string]*entry{}}
	if s.cap <= 0 {
		s.cap = DefaultCapBytes
	}
	s.cap = max(s.cap, MinCapBytes)
	if s.log == nil {
		s.log = slog.Default()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.load()
	return s
}

// load reads the directory (under mu).
func (s *Store) load() {
	if !s.readOnly {
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			s.fail(fmt.Errorf("games directory: %w", err))
			return
		}
	}
	root, err := s.openRoot()
	if err != nil {
		s.fail(err)
		return
	}
	defer root.Close()
	des, err := os.ReadDir(s.dir)
	if err != nil {
		s.fail(fmt.Errorf("games directory: %w", err))
		return
	}
	var nums []int
	for _, de := range des {
		n, ok := segNum(de.Name())
		if !ok {
			continue
		}
		s.maxNum = max(s.maxNum, n)
		if !de.Type().IsRegular() {
			s.log.Warn("skipping a games file that is not a regular file", "file", filepath.Join(s.dir, de.Name()),
				"type", de.Type().String())
			continue
		}
		nums = append(nums, n)
	}
	slices.Sort(nums)
	var loaded []*entry
	for _, n := range nums {
		seg, err := s.readSegment(root, n)
		if errors.Is(err, errRefusedFile) {
			s.log.Warn("skipping a games file", "err", err)
			continue
		}
		if seg != nil {
			s.segs = append(s.segs, seg)
			loaded = append(loaded, seg.entries...)
		}
		if err != nil {
			s.fail(err)
		}
	}
	s.loaded = true
	s.problem = ""
	s.loadAnalyses(root)
	s.indexAll(loaded)
}

// errRefusedFile is returned (wrapped) for a games file that is not read:
// not a regular file, or larger than the cap.
var errRefusedFile = errors.New("refused")

func segName(n int) string { return fmt.Sprintf("games-%06d.jsonl", n) }

func segNum(name string) (int, bool) {
	d, ok := strings.CutPrefix(name, "games-")
	if !ok {
		return 0, false
	}
	d, ok = strings.CutSuffix(d, ".jsonl")
	if !ok || len(d) != 6 {
		return 0, false
	}
	n, err := strconv.Atoi(d)
	return n, err == nil && n > 0
}

// readSegment reads one file of root, the store's directory, to be
// indexed; bad lines are skipped and counted. A file that is not regular
// or is larger than the cap (however few blocks it takes: a sparse file)
// is refused unread (errRefusedFile, no segment).
func (s *Store) readSegment(root *os.Root, n int) (*segment, error) {
	path := filepath.Join(s.dir, segName(n))
	f, fi, err := atomicfile.OpenRegular(root, segName(n), os.O_RDONLY, 0)
	if errors.Is(err, atomicfile.ErrNotRegular) {
		return nil, fmt.Errorf("games file %s: %w: %w", path, errRefusedFile, err)
	}
	if err != nil {
		return nil, fmt.Errorf("games file %s: %w", path, err)
	}
	defer f.Close()
	if fi.Size() > s.cap {
		return nil, fmt.Errorf("games file %s: %w: %d bytes, more than the store's cap of %d", path, errRefusedFile, fi.Size(), s.cap)
	}
	seg := &segment{num: n}
	// Only the size seen is read: a file that grows meanwhile is not
	// followed past the cap.
	r := bufio.NewReaderSize(io.LimitReader(f, fi.Size()), 64<<10)
	var off int64
	for {
		line, n, tooLong, err := readLine(r)
		switch {
		case n == 0:
		case tooLong:
			s.skipped++
			s.log.Warn("skipping a bad line in the games file", "file", path, "offset", off,
				"err", fmt.Sprintf("a line of %d bytes, at most %d", n, maxLine))
			if err == io.EOF {
				seg.sealed = true // no newline: a torn tail
			}
		case line[len(line)-1] != '\n':
			seg.sealed = true // a torn tail: never append after it
			s.skipped++
		default:
			if g, perr := ParseLine(line); perr != nil {
				s.skipped++
				s.log.Warn("skipping a bad line in the games file", "file", path, "offset", off, "err", perr)
			} else if s.byID[g.ID] == nil {
				e := &entry{sum: g.Summary(), seg: seg, off: off, n: int(n)}
				seg.entries = append(seg.entries, e)
				s.byID[g.ID] = e
			}
		}
		off += n
		if err == io.EOF {
			break
		}
		if err != nil {
			seg.sealed = true
			return seg, fmt.Errorf("games file %s: %w", path, err)
		}
	}
	seg.size = off
	return seg, nil
}

// readLine returns the next line with its newline (without one at the end
// of the file) and the bytes it took. A line longer than maxLine is
// consumed to its end without being kept, and reported as tooLong (line
// is then nil).
func readLine(r *bufio.Reader) (line []byte, n int64, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if !tooLong && len(line)+len(chunk) > maxLine {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return line, n, tooLong, err
	}
}

// fail notes a problem (under mu).
func (s *Store) fail(err error) {
	msg := err.Error()
	if msg != s.problem {
		s.log.Warn("games are not being saved", "err", err)
	}
	s.problem = msg
}

// SetCap changes the size cap (at least MinCapBytes) and deletes the
// oldest files now if the total is over it (not in a read-only store).
func (s *Store) SetCap(bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes <= 0 {
		bytes = DefaultCapBytes
	}
	s.cap = max(bytes, MinCapBytes)
	if !s.readOnly {
		s.rotate()
	}
}

// segCap is the size after which a new file starts.
func (s *Store) segCap() int64 { return min(max(s.cap/8, 64<<10), 8<<20) }

// Add writes g (its Schema is set) and returns an error when the disk
// refused it; the game is then kept in memory and written later. A game
// whose id is already kept is ignored.
func (s *Store) Add(g Game) error {
	g = cloneGame(g)
	g.Schema = Schema
	if err := g.Check(); err != nil {
		return fmt.Errorf("record: not keeping a bad game: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readOnly {
		return fmt.Errorf("record: add game %s: %w", g.ID, ErrReadOnly)
	}
	if s.byID[g.ID] != nil || slices.ContainsFunc(s.unsaved, func(u *entry) bool { return u.sum.ID == g.ID }) {
		return nil
	}
	if !s.loaded {
		s.load()
	}
	e := &entry{sum: g.Summary(), game: &g}
	s.index(e)
	queue := append(s.unsaved, e)
	s.unsaved = nil
	var firstErr error
	for i, q := range queue {
		if err := s.write(q); err != nil {
			firstErr = err
			s.unsaved = append(s.unsaved, queue[i:]...)
			break
		}
	}
	if n := len(s.unsaved) - maxUnsaved; n > 0 {
		for _, e := range s.unsaved[:n] {
			s.unindex(e)
		}
		s.unsaved = slices.Clone(s.unsaved[n:])
	}
	if firstErr != nil {
		s.fail(firstErr)
		return firstErr
	}
	s.problem = ""
	s.rotate()
	return nil
}

// write appends e's game, kept in memory, to a games file, and indexes
// it by id (under mu).
func (s *Store) write(e *entry) error {
	line, err := e.game.MarshalLine()
	if err != nil {
		return err
	}
	if !s.loaded {
		return errors.New("games directory unusable")
	}
	var seg *segment
	if n := len(s.segs); n > 0 && !s.segs[n-1].sealed && s.segs[n-1].size+int64(len(line)) <= s.segCap() {
		seg = s.segs[n-1]
	}
	created := false
	if seg == nil {
		num := s.maxNum + 1
		if n := len(s.segs); n > 0 {
			num = max(num, s.segs[n-1].num+1)
		}
		seg = &segment{num: num}
		created = true
	}
	path := filepath.Join(s.dir, segName(seg.num))
	root, err := s.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	flag := os.O_WRONLY | os.O_APPEND
	if created {
		flag |= os.O_CREATE
	}
	f, _, err := atomicfile.OpenRegular(root, segName(seg.num), flag, 0o644)
	if err != nil {
		err = fmt.Errorf("%s: %w", path, err)
	}
	if errors.Is(err, atomicfile.ErrNotRegular) {
		// Not a file of ours to append to: the next game goes to a new one.
		seg.sealed = true
		s.maxNum = max(s.maxNum, seg.num)
	}
	if err != nil {
		return fmt.Errorf("games file: %w", err)
	}
	s.maxNum = max(s.maxNum, seg.num)
	n, werr := f.Write(line)
	if werr == nil {
		werr = f.Sync()
	}
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if created && (n > 0 || werr == nil) {
		s.segs = append(s.segs, seg)
		// The new file's name made durable; a failure costs at most
		// this file after a crash, never the game just written.
		_ = atomicfile.SyncDir(s.dir)
	}
	if werr != nil {
		seg.size += int64(n)
		if n > 0 {
			seg.sealed = true // a partial line: the next game goes to a new file
		}
		return fmt.Errorf("games file %s: %w", path, werr)
	}
	e.seg, e.off, e.n, e.game = seg, seg.size, len(line), nil
	seg.size += int64(len(line))
	seg.entries = append(seg.entries, e)
	s.byID[e.sum.ID] = e
	return nil
}

// rotate deletes the oldest files, with the analyses of their games,
// while the total (games and analyses) is over the cap, always keeping the
// newest games file (under mu). The analyses go first: a crash in between
// leaves games without analyses (analysed again), never analyses without
// games.
func (s *Store) rotate() {
	total := s.anaBytes
	for _, seg := range s.segs {
		total += seg.size
	}
	if total <= s.cap || len(s.segs) <= 1 {
		return
	}
	root, err := s.openRoot()
	if err != nil {
		s.fail(fmt.Errorf("rotate games: %w", err))
		return
	}
	defer root.Close()
	gone := false
	defer func() {
		if gone {
			s.unindexGone()
		}
	}()
	for total > s.cap && len(s.segs) > 1 {
		old := s.segs[0]
		for _, e := range old.entries {
			if e.ana != nil && s.byID[e.sum.ID] == e {
				total -= e.anaSize
				s.dropAnalysis(root, e)
			}
		}
		if err := root.Remove(segName(old.num)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.fail(fmt.Errorf("rotate games: %w", err))
			return
		}
		for _, e := range old.entries {
			if s.byID[e.sum.ID] == e {
				delete(s.byID, e.sum.ID)
				e.gone, gone = true, true
			}
		}
		total -= old.size
		s.segs = s.segs[1:]
	}
}

// Status reports the store's state.
func (s *Store) Status() StoreStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := StoreStatus{Dir: s.dir, OK: s.problem == "", Problem: s.problem, Games: len(s.byID) + len(s.unsaved),
		Unsaved: len(s.unsaved), Skipped: s.skipped, CapBytes: s.cap, Files: len(s.segs),
		Bytes: s.anaBytes, AnalysisBytes: s.anaBytes}
	for _, seg := range s.segs {
		st.Bytes += seg.size
	}
	st.Analysed = s.analysed
	return st
}

// List returns the summaries of the games that pass f, newest first
// (among equal end times, in the order kept), skipping offset of them and
// returning at most limit (all when limit ≤ 0), and the number that pass
// f. Its cost is the page's, whatever the number of games kept: without a
// filter it goes straight to the page; with one it scans the summaries
// kept (no copy) up to the page's end and counts from the running tallies.
func (s *Store) List(f Filter, offset, limit int) ([]Summary, int) {
	m := f.matcher()
	offset = max(offset, 0)
	s.mu.Lock()
	defer s.mu.Unlock()
	total := len(s.order)
	if !m.all() {
		total, _ = s.tally.count(m)
	}
	n := max(total-offset, 0)
	if limit > 0 {
		n = min(n, limit)
	}
	out := make([]Summary, 0, n)
	if n == 0 {
		return out, total
	}
	if m.all() {
		for i := len(s.order) - 1 - offset; i >= 0 && len(out) < n; i-- {
			out = append(out, s.order[i].summary())
		}
		return out, total
	}
	skip := offset
	for i := len(s.order) - 1; i >= 0 && len(out) < n; i-- {
		if e := s.order[i]; m.entry(e) {
			if skip > 0 {
				skip--
				continue
			}
			out = append(out, e.summary())
		}
	}
	return out, total
}

// summary returns e's summary with its own copy of the analysis summary.
func (e *entry) summary() Summary {
	sum := e.sum
	if e.ana != nil {
		a := *e.ana
		sum.Analysis = &a
	}
	return sum
}

// picked is a game an export picked: its id and mode.
type picked struct{ id, mode string }

// pick returns the games that pass f and, when named is not nil, are
// named, in the lists' order (newest first): their ids and modes only,
// which share the index's strings.
func (s *Store) pick(f Filter, named map[string]bool) []picked {
	m := f.matcher()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []picked
	for i := len(s.order) - 1; i >= 0; i-- {
		if e := s.order[i]; m.entry(e) && (named == nil || named[e.sum.ID]) {
			out = append(out, picked{id: e.sum.ID, mode: e.sum.Mode})
		}
	}
	return out
}

// summaries returns the summaries of the games keep accepts, in the
// lists' order (newest first).
func (s *Store) summaries(keep func(Summary) bool) []Summary {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []Summary
	for i := len(s.order) - 1; i >= 0; i-- {
		if sum := s.order[i].summary(); keep(sum) {
			all = append(all, sum)
		}
	}
	return all
}

// ErrNotFound is returned (wrapped) by Get for an unknown id.
var ErrNotFound = errors.New("no such game")

// Get returns the game with id.
func (s *Store) Get(id string) (Game, error) {
	line, err := s.line(id)
	if err != nil {
		return Game{}, err
	}
	if line == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, e := range s.unsaved {
			if e.sum.ID == id {
				return cloneGame(*e.game), nil
			}
		}
		return Game{}, fmt.Errorf("game %q: %w", id, ErrNotFound)
	}
	g, err := ParseLine(line)
	if err != nil {
		return Game{}, fmt.Errorf("game %q: %w", id, err)
	}
	return g, nil
}

// line reads the stored line of id; nil when id is not on disk.
func (s *Store) line(id string) ([]byte, error) {
	s.mu.Lock()
	e := s.byID[id]
	var name string
	var off int64
	var n int
	if e != nil {
		name, off, n = segName(e.seg.num), e.off, e.n
	}
	s.mu.Unlock()
	if e == nil {
		return nil, nil
	}
	root, err := s.openRoot()
	if err != nil {
		return nil, fmt.Errorf("game %q: %w", id, err)
	}
	defer root.Close()
	f, _, err := atomicfile.OpenRegular(root, name, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("game %q: games file %s: %w", id, filepath.Join(s.dir, name), err)
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("game %q: %w", id, err)
	}
	return buf, nil
}

// AppendFile appends games to the JSON-lines file path (created when
// missing), one synced write per game, for tools that keep a single file
// (flipbot-arena match --games).
func AppendFile(path string, games ...Game) error {
	var buf bytes.Buffer
	for _, g := range games {
		g.Schema = Schema
		line, err := g.MarshalLine()
		if err != nil {
			return err
		}
		buf.Write(line)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("games file: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("games file %s: %w", path, err)
	}
	return nil
}
