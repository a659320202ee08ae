package record

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/atomicfile"
)

// analysisDir is the directory of the analyses, inside the store's.
const analysisDir = "analysis"

func (s *Store) analysisPath(id string) string {
	return filepath.Join(s.dir, analysisDir, id+".json")
}

// loadAnalyses indexes the analyses of the games indexed (under mu, after
// the games). A file that is not an analysis of a kept game is skipped;
// one of a game older than every kept game (its game was rotated away by
// another process) is deleted, as are the temporary files of writes a
// crash cut short.
func (s *Store) loadAnalyses() {
	dir := filepath.Join(s.dir, analysisDir)
	des, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("game analyses unreadable", "dir", dir, "err", err)
		}
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
			_ = os.Remove(filepath.Join(dir, name))
			continue
		}
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !ValidID(id) || !de.Type().IsRegular() {
			continue
		}
		e := s.byID[id]
		if e == nil {
			if ms, ok := idEnded(id); ok && oldest >= 0 && ms < oldest {
				_ = os.Remove(filepath.Join(dir, name))
			}
			continue
		}
		a, size, err := s.readAnalysis(id, e.sum)
		if err != nil {
			s.log.Warn("skipping a game analysis", "game", id, "err", err)
			continue
		}
		sum := a.Summary()
		e.ana, e.anaSize = &sum, size
		s.anaBytes += size
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
// summarises, refusing a file over MaxAnalysisBytes unread. It returns the
// analysis and the file's size.
func (s *Store) readAnalysis(id string, sum Summary) (Analysis, int64, error) {
	mode, err := othello.ParseMode(sum.Mode)
	if err != nil {
		return Analysis{}, 0, fmt.Errorf("analysis of %s: %w", id, err)
	}
	f, err := os.Open(s.analysisPath(id))
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
	return a, int64(len(data)), nil
}

// dropAnalysis deletes the analysis of e's game (under mu).
func (s *Store) dropAnalysis(e *entry) {
	if err := os.Remove(s.analysisPath(e.sum.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		s.log.Warn("delete a game analysis", "game", e.sum.ID, "err", err)
	}
	s.anaBytes -= e.anaSize
	e.ana, e.anaSize = nil, 0
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
	e := s.byID[a.Game]
	if e == nil {
		return fmt.Errorf("save analysis: game %q: %w", a.Game, ErrNotFound)
	}
	if err := os.MkdirAll(filepath.Join(s.dir, analysisDir), 0o755); err != nil {
		return fmt.Errorf("save analysis: %w", err)
	}
	if err := atomicfile.WriteFile(s.analysisPath(a.Game), data, 0o644); err != nil {
		return fmt.Errorf("save analysis of %s: %w", a.Game, err)
	}
	sum := a.Summary()
	s.anaBytes += int64(len(data)) - e.anaSize
	e.ana, e.anaSize = &sum, int64(len(data))
	s.rotate()
	return nil
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
	a, _, err := s.readAnalysis(id, sum)
	if err != nil {
		return Analysis{}, err
	}
	if err := a.Check(&g); err != nil {
		return Analysis{}, err
	}
	return a, nil
}
