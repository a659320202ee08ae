// Package edax runs Edax 4.6 (the connector's `--edax PATH` and
// `--edax-eval PATH` options) as an NBoard engine.
//
// Lifetime: create one engine per leg with [New]; it plays std only. Edax
// is started with -nboard (and `nboard 1`, the only version it accepts),
// -eval-file, -n and -h when set (see engines/sizing) and, at start,
// `set depth 60` (or the --nboard-depth value). Each move is asked for
// with `hint 1`, whose answer `search PV EVAL 0 DEPTH` carries the depth
// that Edax's `go` answer leaves out; the search is stopped with a ping at
// the think time allotted from the clock (adapt.ThinkTime), and Edax
// answers its best move so far.
//
// When no evaluation file is given, eval.dat is looked for as
// <dir>/data/eval.dat, <dir>/eval.dat and <dir>/../data/eval.dat, <dir>
// being the binary's directory. Edax runs in the directory holding the
// data/ folder of the evaluation file (else the binary's), so that its
// data/book.dat and edax.ini are found.
//
// One file, edax.go ([New], [Options], [FindEval]). It may import engines,
// engines/nboard (Edax speaks NBoard) and engines/internal/adapt (the
// think time).
package edax

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/internal/adapt"
	"flipbot.dev/flipbot/engines/nboard"
)

// DefaultDepth is the level Edax is given when Options.Depth is 0: the
// clock, not the depth, ends its searches.
const DefaultDepth = 60

// stopMargin is the time kept under the budget to stop Edax's search and
// read its answer.
const stopMargin = 250 * time.Millisecond

// Options configure an Edax engine.
type Options struct {
	// Path is the Edax binary (--edax).
	Path string
	// EvalFile is eval.dat (--edax-eval); empty means look for it.
	EvalFile string
	// Depth is sent with `set depth` (--nboard-depth); 0 means 60.
	Depth int
	// Threads, when positive, is passed as -n.
	Threads int
	// Hash, when positive, is passed as -h: the table has 2^Hash entries
	// (Edax's default 22 takes 164 MiB in all; see engines/sizing).
	Hash int
	// ExtraArgs are added to Edax's command line.
	ExtraArgs []string
	// Name is the engine's name; empty means "Edax".
	Name string
	// Logger receives Edax's stderr and the adapter's messages.
	Logger *slog.Logger
	// StderrLevel is the log level of Edax's stderr lines.
	StderrLevel slog.Level
}

// ErrNoEval is returned by New when eval.dat cannot be found.
var ErrNoEval = errors.New("edax: eval.dat not found")

// New checks the binary and the evaluation file and returns an engine for
// one leg; Edax starts at the first move.
func New(opts Options) (*nboard.Engine, error) {
	bin, err := resolve(opts.Path)
	if err != nil {
		return nil, err
	}
	eval := opts.EvalFile
	if eval == "" {
		if eval, err = FindEval(bin); err != nil {
			return nil, err
		}
	} else if err := regularFile(eval); err != nil {
		return nil, fmt.Errorf("edax eval file: %w", err)
	}
	if eval, err = filepath.Abs(eval); err != nil {
		return nil, fmt.Errorf("edax eval file: %w", err)
	}
	dir := filepath.Dir(bin)
	if d := filepath.Dir(eval); filepath.Base(d) == "data" {
		dir = filepath.Dir(d)
	}
	depth := opts.Depth
	if depth == 0 {
		depth = DefaultDepth
	}
	if opts.Name == "" {
		opts.Name = "Edax"
	}
	args := []string{"-nboard", "-eval-file", eval}
	if opts.Threads > 0 {
		args = append(args, "-n", strconv.Itoa(opts.Threads))
	}
	if opts.Hash < 0 || opts.Hash > 30 {
		return nil, fmt.Errorf("edax: hash bits %d outside 0..30", opts.Hash)
	}
	if opts.Hash > 0 {
		args = append(args, "-h", strconv.Itoa(opts.Hash))
	}
	args = append(args, opts.ExtraArgs...)
	return nboard.New(nboard.Options{
		Path:        bin,
		Args:        args,
		Dir:         dir,
		Name:        opts.Name,
		Version:     1,
		Depth:       depth,
		Hint:        true,
		Think:       func(req engines.Request) time.Duration { return adapt.ThinkTime(req, stopMargin) },
		StopMargin:  stopMargin,
		Logger:      opts.Logger,
		StderrLevel: opts.StderrLevel,
	})
}

// FindEval looks for eval.dat for the Edax binary bin: in <dir>/data,
// <dir> and <dir>/../data.
func FindEval(bin string) (string, error) {
	dir := filepath.Dir(bin)
	candidates := []string{
		filepath.Join(dir, "data", "eval.dat"),
		filepath.Join(dir, "eval.dat"),
		filepath.Join(dir, "..", "data", "eval.dat"),
	}
	for _, c := range candidates {
		if regularFile(c) == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w (looked in %s); give its path with --edax-eval", ErrNoEval, strings.Join(candidates, ", "))
}

// resolve returns the absolute path of an executable file.
func resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("edax: no binary given")
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return "", fmt.Errorf("edax binary: %w", err)
	}
	if p, err = filepath.Abs(p); err != nil {
		return "", fmt.Errorf("edax binary: %w", err)
	}
	return p, nil
}

func regularFile(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}
