package eval

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"flipbot.dev/flipbot/engines/othello"
)

// Set holds one evaluation per mode, in the shape search.Options takes
// (Set.Eval8 and Set.Eval10 are its Eval8 and Eval10).
type Set struct {
	e8  [5]Evaluator8
	e10 [5]Evaluator10
}

// BaselineSet returns the hand-made evaluations of every mode.
func BaselineSet() *Set {
	s := &Set{}
	for _, m := range othello.AllModes() {
		if m.Size() == 10 {
			s.e10[m] = Baseline10(m)
		} else {
			s.e8[m] = Baseline8(m)
		}
	}
	return s
}

// Replace makes p the evaluation of its mode.
func (s *Set) Replace(p *Pattern) {
	if p.mode.Size() == 10 {
		s.e10[p.mode] = p
	} else {
		s.e8[p.mode] = p
	}
}

// Eval8 returns the evaluation of an 8×8 mode.
func (s *Set) Eval8(m othello.Mode) Evaluator8 { return s.e8[m] }

// Eval10 returns the evaluation of a 10×10 mode.
func (s *Set) Eval10(m othello.Mode) Evaluator10 { return s.e10[m] }

//go:embed weights
var embedded embed.FS

// WeightsFile is the name of a mode's file among the embedded weights.
func WeightsFile(m othello.Mode) string { return m.String() + ".fbpw" }

// Embedded loads the trained weights built into the binary, one file per
// mode, and returns their evaluations. Call it once at start-up: it
// decompresses and checks every file (a few MB of tables in all). A missing
// or corrupt file is an error.
func Embedded() (*Set, error) {
	return loadSet(embedded, "weights", everyMode)
}

// everyMode selects every mode (for loadSet).
func everyMode(othello.Mode) bool { return true }

// loadSet loads the weights of the modes trained selects from dir in fsys;
// the other modes get the hand-made evaluation, and their files are not read.
func loadSet(fsys fs.FS, dir string, trained func(othello.Mode) bool) (*Set, error) {
	s := BaselineSet()
	for _, m := range othello.AllModes() {
		if !trained(m) {
			continue
		}
		name := dir + "/" + WeightsFile(m)
		data, err := fs.ReadFile(fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("embedded weights: no %s in this build", name)
		}
		if err != nil {
			return nil, fmt.Errorf("embedded weights: %w", err)
		}
		var w Weights
		if err := w.UnmarshalBinary(data); err != nil {
			return nil, fmt.Errorf("embedded weights %s: %w", name, err)
		}
		if w.Mode != m {
			return nil, fmt.Errorf("embedded weights %s: %w: holds %s weights", name, ErrCorrupt, w.Mode)
		}
		p, err := NewPattern(&w)
		if err != nil {
			return nil, fmt.Errorf("embedded weights %s: %w", name, err)
		}
		s.Replace(p)
	}
	return s, nil
}

// Names of the evaluations a command line may choose (-eval).
const (
	// NameBest is, per mode, the evaluation measured stronger in paired
	// matches: the trained one where it beats the hand-made one, the
	// hand-made one elsewhere (see [TrainedIsStronger]). It is the default.
	NameBest = "best"
	// NamePattern is the trained pattern evaluation in every mode.
	NamePattern = "pattern"
	// NameBaseline is the hand-made evaluation in every mode.
	NameBaseline = "baseline"
)

// TrainedIsStronger reports whether the embedded weights of mode m play
// stronger than the hand-made evaluation: measured in 100 paired matches of
// each mode, 5 s clocks, 1 thread each (engines/README.md "Strength"),
// trained against hand-made: std +463 Elo (generation 1), anti +323,
// reversi +205, grand +241, octagon +798; and the 8×8 generation 2
// against generation 1: std +191, anti +151, reversi +143. New weights of a mode go in only when they win that
// match (against the hand-made evaluation, or against the embedded weights
// that won it); until then the mode is left out here and plays the
// hand-made evaluation under [NameBest] (grand did, while its generation-1
// weights lost by 315 Elo).
func TrainedIsStronger(m othello.Mode) bool {
	switch m {
	case othello.Std, othello.Anti, othello.Reversi, othello.Grand, othello.Octagon:
		return true
	}
	return false
}

// Best returns, per mode, the evaluation measured stronger: the embedded
// weights where [TrainedIsStronger] (loaded and checked now), the hand-made
// evaluation elsewhere (those modes' files are not even decompressed).
func Best() (*Set, error) {
	return loadSet(embedded, "weights", TrainedIsStronger)
}

// ByName returns the evaluations called name: [NameBest] (also for ""),
// [NamePattern] (the embedded weights, loaded and checked now) or
// [NameBaseline].
func ByName(name string) (*Set, error) {
	switch name {
	case NameBest, "":
		return Best()
	case NamePattern:
		return Embedded()
	case NameBaseline:
		return BaselineSet(), nil
	}
	return nil, fmt.Errorf("unknown evaluation %q (want %s, %s or %s)", name, NameBest, NamePattern, NameBaseline)
}
