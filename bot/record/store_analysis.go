package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/atomicfile"
)

// analysisDir is the directory of the analyses, inside the store's.
const analysisDir = "analysis"

// analysisName is the name of id's analysis in the store's directory.
func analysisName(id string) string { return filepath.Join(analysisDir, id+".json") }

// analysisDirOK reports whether analysis/ in root is the store's own
// directory (made when create is set), logging once when it is refused
// (a symbolic link in its place: nothing is read, written or deleted
// through it) (under mu).
func (s *Store) analysisDirOK(root *os.Root, create bool) bool {
	ok, err := subdirOK(root, analysisDir, create)
	switch {
	case ok:
		s.anaRefused = false
	case errors.Is(err, fs.ErrNotExist):
	case !s.anaRefused:
		s.anaRefused = true
		s.log.Warn("game analyses not used", "dir", filepath.Join(s.dir, analysisDir), "err", err)
	}
	return ok
}

// loadAnalyses indexes the analyses of the games read (under mu, after
// the games, before they are indexed), from analysis/ when it is the
// store's own directory. A file that is not an analysis of a kept game is
// skipped; unless the store is read-only, one of a game older than every
// kept game (its game was rotated away by another process) is deleted, as
// are the temporary files of writes a crash cut short.
func (s *Store) loadAnalyses(root *os.Root) {
	if !s.analysisDirOK(root, false) {
		return
	}
	d, err := root.Open(analysisDir)
	var des []fs.DirEntry
	if err == nil {
		des, err = d.ReadDir(-1)
		d.Close()
	}
	if err != nil {
		s.log.Warn("game analyses unreadable", "dir", filepath.Join(s.dir, analysisDir), "err", err)
		return
	}
	oldest := int64(-1) // end time (ms) of the oldest game kept
	for _, e := range s.byID {
		if ms := e.sum.Ended.UnixMilli(); oldest < 0 || ms < oldest {
			oldest = ms
		}
	}
	for _, de := range des {
		name := de.Name()
		if strings.HasPrefix(name, atomicfile.TempPrefix) {
			if !s.readOnly && de.Type().IsRegular() {
				_ = root.Remove(filepath.Join(analysisDir, name))
			}
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !ValidID(id) || !de.Type().IsRegular() {
			continue
		}
		e := s.byID[id]
		if e == nil {
			if ms, ok := idEnded(id); ok && oldest >= 0 && ms < oldest && !s.readOnly {
				_ = root.Remove(analysisName(id))
			}
			continue
		}
		a, size, err := s.readAnalysis(root, id, e.sum)
		if err != nil {
			s.log.Warn("skipping a game analysis", "game", id, "err", err)
			continue
		}
		sum := a.Summary()
		e.ana, e.anaSize = &sum, size
		s.anaBytes += size
		s.analysed++
	}
}

// idEnded returns the end time in ms that MakeID put into id.
func idEnded(id string) (int64, bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return 0, false
	}
	ms, err := strconv.ParseInt(id[i+1:], 10, 64)
	return ms, err == nil
}

// readAnalysis reads and checks the shape of the analysis of the game sum
// summarises, from root (the store's directory), refusing a file over
// MaxAnalysisBytes unread, and one that is not a regular file unopened.
// It returns the analysis and the disk space of its file.
func (s *Store) readAnalysis(root *os.Root, id string, sum Summary) (Analysis, int64, error) {
	mode, err := othello.ParseMode(sum.Mode)
	if err != nil {
		return Analysis{}, 0, fmt.Errorf("analysis of %s: %w", id, err)
	}
	if ok, err := subdirOK(root, analysisDir, false); !ok {
		if errors.Is(err, fs.ErrNotExist) {
			return Analysis{}, 0, fmt.Errorf("game %q: %w", id, ErrNoAnalysis)
		}
		return Analysis{}, 0, fmt.Errorf("analysis of %s: %w", id, err)
	}
	f, fi, err := atomicfile.OpenRegular(root, analysisName(id), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Analysis{}, 0, fmt.Errorf("game %q: %w", id, ErrNoAnalysis)
	}
	if err != nil {
		return Analysis{}, 0, fmt.Errorf("analysis of %s: %w", id, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxAnalysisBytes+1))
	if err != nil {
		return Analysis{}, 0, fmt.Errorf("analysis of %s: %w", id, err)
	}
	a, err := ParseAnalysis(data, mode, sum.Moves)
	if err != nil {
		return Analysis{}, 0, err
	}
	if a.Game != id {
		return Analysis{}, 0, fmt.Errorf("%w: the file of game %s holds the analysis of %s", ErrBadAnalysis, id, a.Game)
	}
	return a, diskBytes(fi), nil
}

// dropAnalysis deletes the analysis of e's game from root, the store's
// directory (under mu).
func (s *Store) dropAnalysis(root *os.Root, e *entry) {
	if s.analysisDirOK(root, false) {
		if err := root.Remove(analysisName(e.sum.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("delete a game analysis", "game", e.sum.ID, "err", err)
		}
	}
	s.setAnalysis(e, nil, 0)
}

// SaveAnalysis keeps a, the analysis of a game kept on disk, replacing the
// one it had: checked against the game (Analysis.Check), written
// crash-safely (a power cut leaves the old analysis or the new one) and
// counted in the store's cap. A game only in memory (the disk refused it)
// is not analysed: the error wraps ErrNotFound.
func (s *Store) SaveAnalysis(a Analysis) error {
	a.Schema = AnalysisSchema
	g, err := s.Get(a.Game)
	if err != nil {
		return fmt.Errorf("save analysis: %w", err)
	}
	if err := a.Check(&g); err != nil {
		return fmt.Errorf("save analysis: %w", err)
	}
	data, err := MarshalAnalysis(&a)
	if err != nil {
		return err
	}
	if len(data) > MaxAnalysisBytes {
		return fmt.Errorf("save analysis of %s: %w: %d bytes, at most %d", a.Game, ErrBadAnalysis, len(data), MaxAnalysisBytes)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readOnly {
		return fmt.Errorf("save analysis of %s: %w", a.Game, ErrReadOnly)
	}
	e := s.byID[a.Game]
	if e == nil {
		return fmt.Errorf("save analysis: game %q: %w", a.Game, ErrNotFound)
	}
	root, err := s.openRoot()
	if err != nil {
		return fmt.Errorf("save analysis: %w", err)
	}
	defer root.Close()
	if !s.analysisDirOK(root, true) {
		return fmt.Errorf("save analysis of %s: %s is not a directory of the store", a.Game, analysisDir)
	}
	size, err := writeAnalysisFile(root, analysisName(a.Game), data)
	if err != nil {
		return fmt.Errorf("save analysis of %s: %w", a.Game, err)
	}
	sum := a.Summary()
	s.setAnalysis(e, &sum, size)
	s.rotate()
	return nil
}

// writeAnalysisFile replaces name in root with data crash-safely, as
// atomicfile does but through root (nothing written outside it): a temp
// file beside it, fsynced, renamed over it, the directory fsynced. It
// returns the disk space of the file.
func writeAnalysisFile(root *os.Root, name string, data []byte) (int64, error) {
	tmp := filepath.Join(filepath.Dir(name), atomicfile.TempPrefix+filepath.Base(name)+"-"+strconv.FormatUint(rand.Uint64(), 36))
	f, _, err := atomicfile.OpenRegular(root, tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, fmt.Errorf("create temp file: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
		return 0, fmt.Errorf("write %s: %w", name, err)
	}
	if runtime.GOOS != "windows" { // NTFS journals the rename; a directory cannot be fsynced there
		if d, err := root.Open(filepath.Dir(name)); err == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return diskBytes(fi), nil
}

// Analysis returns the analysis of the game id, checked against the game.
// The error wraps ErrNotFound for an unknown game, ErrNoAnalysis for a
// game not analysed and ErrBadAnalysis for a damaged analysis.
func (s *Store) Analysis(id string) (Analysis, error) {
	g, err := s.Get(id)
	if err != nil {
		return Analysis{}, err
	}
	s.mu.Lock()
	e := s.byID[id]
	var sum Summary
	if e != nil {
		sum = e.sum
	}
	s.mu.Unlock()
	if e == nil {
		return Analysis{}, fmt.Errorf("game %q: %w", id, ErrNoAnalysis)
	}
	root, err := s.openRoot()
	if err != nil {
		return Analysis{}, fmt.Errorf("analysis of %s: %w", id, err)
	}
	defer root.Close()
	a, _, err := s.readAnalysis(root, id, sum)
	if err != nil {
		return Analysis{}, err
	}
	if err := a.Check(&g); err != nil {
		return Analysis{}, err
	}
	return a, nil
}
