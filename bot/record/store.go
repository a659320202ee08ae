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
	"sort"
	"strconv"
	"strings"
	"sync"
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
// A Store is safe for concurrent use; its mutex guards every field.
type Store struct {
	mu      sync.Mutex
	dir     string
	cap     int64
	log     *slog.Logger
	segs    []*segment
	byID    map[string]*entry
	unsaved []Game
	problem string
	skipped int
	loaded  bool
	// anaBytes is the size of the analysis files of the games indexed.
	anaBytes int64
}

type segment struct {
	num     int
	size    int64
	sealed  bool // a torn tail or a failed write: never appended to again
	entries []*entry
}

type entry struct {
	sum Summary
	seg *segment
	off int64
	n   int
	// ana is the summary of the game's analysis (nil: none) and anaSize
	// the size of its file.
	ana     *AnalysisSummary
	anaSize int64
}

// StoreStatus describes a Store for the pages.
type StoreStatus struct {
	Dir      string `json:"dir"`
	OK       bool   `json:"ok"`
	Problem  string `json:"problem,omitempty"`
	Games    int    `json:"games"`
	Unsaved  int    `json:"unsaved"`
	Skipped  int    `json:"skipped_lines"`
	Bytes    int64  `json:"bytes"`
	CapBytes int64  `json:"cap_bytes"`
	Files    int    `json:"files"`
	// Analysed counts the games with an analysis; AnalysisBytes is the
	// size of their files (part of Bytes).
	Analysed      int   `json:"analysed"`
	AnalysisBytes int64 `json:"analysis_bytes"`
}

// Open returns the store of opts.Dir, reading the games already there. It
// does not fail on disk problems: Status reports them.
func Open(opts Options) *Store {
	s := &Store{dir: opts.Dir, cap: opts.CapBytes, log: opts.Logger, byID: map[string]*entry{}}
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
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		s.fail(fmt.Errorf("games directory: %w", err))
		return
	}
	des, err := os.ReadDir(s.dir)
	if err != nil {
		s.fail(fmt.Errorf("games directory: %w", err))
		return
	}
	var nums []int
	for _, de := range des {
		if n, ok := segNum(de.Name()); ok && de.Type().IsRegular() {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		seg, err := s.readSegment(n)
		if err != nil {
			s.fail(err)
			continue
		}
		s.segs = append(s.segs, seg)
	}
	s.loaded = true
	s.problem = ""
	s.loadAnalyses()
}

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

// readSegment indexes one file; bad lines are skipped and counted.
func (s *Store) readSegment(n int) (*segment, error) {
	path := filepath.Join(s.dir, segName(n))
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("games file: %w", err)
	}
	defer f.Close()
	seg := &segment{num: n}
	r := bufio.NewReaderSize(f, 64<<10)
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
// oldest files now if the total is over it.
func (s *Store) SetCap(bytes int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if bytes <= 0 {
		bytes = DefaultCapBytes
	}
	s.cap = max(bytes, MinCapBytes)
	s.rotate()
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
	if s.byID[g.ID] != nil || slices.ContainsFunc(s.unsaved, func(u Game) bool { return u.ID == g.ID }) {
		return nil
	}
	if !s.loaded {
		s.load()
	}
	queue := append(s.unsaved, g)
	s.unsaved = nil
	var firstErr error
	for i, q := range queue {
		if err := s.write(q); err != nil {
			firstErr = err
			s.unsaved = append(s.unsaved, queue[i:]...)
			break
		}
	}
	if len(s.unsaved) > maxUnsaved {
		s.unsaved = s.unsaved[len(s.unsaved)-maxUnsaved:]
	}
	if firstErr != nil {
		s.fail(firstErr)
		return firstErr
	}
	s.problem = ""
	s.rotate()
	return nil
}

// write appends one game (under mu).
func (s *Store) write(g Game) error {
	line, err := g.MarshalLine()
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
		num := 1
		if n := len(s.segs); n > 0 {
			num = s.segs[n-1].num + 1
		}
		seg = &segment{num: num}
		created = true
	}
	path := filepath.Join(s.dir, segName(seg.num))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("games file: %w", err)
	}
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
		syncDir(s.dir)
	}
	if werr != nil {
		seg.size += int64(n)
		if n > 0 {
			seg.sealed = true // a partial line: the next game goes to a new file
		}
		return fmt.Errorf("games file %s: %w", path, werr)
	}
	e := &entry{sum: g.Summary(), seg: seg, off: seg.size, n: len(line)}
	seg.size += int64(len(line))
	seg.entries = append(seg.entries, e)
	s.byID[g.ID] = e
	return nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
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
	for total > s.cap && len(s.segs) > 1 {
		old := s.segs[0]
		for _, e := range old.entries {
			if e.ana != nil && s.byID[e.sum.ID] == e {
				total -= e.anaSize
				s.dropAnalysis(e)
			}
		}
		if err := os.Remove(filepath.Join(s.dir, segName(old.num))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.fail(fmt.Errorf("rotate games: %w", err))
			return
		}
		for _, e := range old.entries {
			if s.byID[e.sum.ID] == e {
				delete(s.byID, e.sum.ID)
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
	for _, e := range s.byID {
		if e.ana != nil {
			st.Analysed++
		}
	}
	return st
}

// List returns the summaries of the games that pass f, newest first,
// skipping offset of them and returning at most limit (all when limit ≤ 0),
// and the number that pass f.
func (s *Store) List(f Filter, offset, limit int) ([]Summary, int) {
	all := s.summaries(f.Match)
	n := len(all)
	if offset > 0 {
		all = all[min(offset, n):]
	}
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	return all, n
}

// summaries returns the summaries of the games keep accepts, newest
// first (by end time; kept order among equal times).
func (s *Store) summaries(keep func(Summary) bool) []Summary {
	s.mu.Lock()
	all := make([]Summary, 0, len(s.byID)+len(s.unsaved))
	for _, seg := range s.segs {
		for _, e := range seg.entries {
			if s.byID[e.sum.ID] == e && keep(e.sum) {
				sum := e.sum
				if e.ana != nil {
					a := *e.ana
					sum.Analysis = &a
				}
				all = append(all, sum)
			}
		}
	}
	for _, g := range s.unsaved {
		if sum := g.Summary(); keep(sum) {
			all = append(all, sum)
		}
	}
	s.mu.Unlock()
	sort.SliceStable(all, func(i, j int) bool { return all[i].Ended.After(all[j].Ended) })
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
		for _, g := range s.unsaved {
			if g.ID == id {
				return cloneGame(g), nil
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
	var path string
	var off int64
	var n int
	if e != nil {
		path, off, n = filepath.Join(s.dir, segName(e.seg.num)), e.off, e.n
	}
	s.mu.Unlock()
	if e == nil {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("game %q: %w", id, err)
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
