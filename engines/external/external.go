// Package external chooses and builds the external-engine adapter that the
// connector's flags ask for: --engine (JSON line), --nboard and
// --nboard-depth (NBoard), --edax and --edax-eval (Edax), --egaroucid
// (Egaroucid for Console).
//
// The bot asks [Config.PerLeg] how many instances to make: a JSON-line
// engine is one process per match, shared by both legs (one instance per
// match); the others are one process per leg (one instance per leg). Each
// instance starts its process at its first move and must be closed when the
// match (or leg) is over.
package external

import (
	"errors"
	"fmt"
	"log/slog"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/edax"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/nboard"
	"flipbot.dev/flipbot/engines/othello"
)

// Kind is the kind of external engine.
type Kind int

// The kinds of external engine.
const (
	// None means no external engine flag: the bot uses the built-in one.
	None Kind = iota
	JSONLine
	NBoard
	Edax
	Egaroucid
)

// String returns the flag's name of the kind.
func (k Kind) String() string {
	switch k {
	case JSONLine:
		return "engine"
	case NBoard:
		return "nboard"
	case Edax:
		return "edax"
	case Egaroucid:
		return "egaroucid"
	}
	return "none"
}

// Config is the engine part of the connector's flags.
type Config struct {
	Engine      string // --engine CMD
	NBoard      string // --nboard CMD
	NBoardDepth int    // --nboard-depth N (0..60; for Edax 0 means 60)
	Edax        string // --edax PATH
	EdaxEval    string // --edax-eval PATH
	Egaroucid   string // --egaroucid PATH
	// Threads, when positive, is passed to Edax (-n) and Egaroucid (-t).
	Threads int
	// Name, when set, overrides the adapters' own names.
	Name string
	// Logger receives the engines' stderr and the adapters' messages.
	Logger *slog.Logger
	// StderrLevel is the log level of the engines' stderr lines.
	StderrLevel slog.Level
}

// Starter is implemented by every engine New returns: Start starts its
// process ahead of its first move (for example when the match is accepted),
// so that the engine's start-up is not taken from that move's budget.
type Starter interface {
	Start() error
}

// ErrSeveral is returned when more than one engine flag is set.
var ErrSeveral = errors.New("give only one of --engine, --nboard, --edax, --egaroucid")

// Kind returns the kind the flags ask for.
func (c Config) Kind() (Kind, error) {
	var kinds []Kind
	if c.Engine != "" {
		kinds = append(kinds, JSONLine)
	}
	if c.NBoard != "" {
		kinds = append(kinds, NBoard)
	}
	if c.Edax != "" {
		kinds = append(kinds, Edax)
	}
	if c.Egaroucid != "" {
		kinds = append(kinds, Egaroucid)
	}
	switch len(kinds) {
	case 0:
		if c.EdaxEval != "" {
			return None, errors.New("--edax-eval needs --edax")
		}
		return None, nil
	case 1:
		if c.EdaxEval != "" && kinds[0] != Edax {
			return None, errors.New("--edax-eval needs --edax")
		}
		return kinds[0], nil
	}
	return None, ErrSeveral
}

// PerLeg reports whether the bot makes one instance per leg (NBoard, Edax,
// Egaroucid) rather than one per match (JSON line).
func (c Config) PerLeg() bool {
	k, _ := c.Kind()
	return k != JSONLine
}

// Supports reports whether the configured engine plays mode: every mode
// for a JSON-line engine (the user declares its modes on the site), std
// only for the others.
func (c Config) Supports(mode othello.Mode) bool {
	k, _ := c.Kind()
	return k == JSONLine || mode == othello.Std
}

// Check validates the flags without starting anything: the command line
// splits, the binaries exist, Edax's eval.dat is found, the depth is in
// range. The bot calls it at startup to fail early.
func (c Config) Check() error {
	k, err := c.Kind()
	if err != nil {
		return err
	}
	if k == None {
		return nil
	}
	e, err := c.New()
	if err != nil {
		return err
	}
	return e.Close()
}

// New returns a new engine instance (see the package comment for how many
// to make). Its process starts at its first move.
func (c Config) New() (engines.Engine, error) {
	k, err := c.Kind()
	if err != nil {
		return nil, err
	}
	if c.NBoardDepth < 0 || c.NBoardDepth > 60 {
		return nil, fmt.Errorf("--nboard-depth %d outside 0..60", c.NBoardDepth)
	}
	switch k {
	case JSONLine:
		return jsonline.New(jsonline.Options{Command: c.Engine, Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	case NBoard:
		return nboard.New(nboard.Options{Command: c.NBoard, Depth: c.NBoardDepth, Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	case Edax:
		return edax.New(edax.Options{Path: c.Edax, EvalFile: c.EdaxEval, Depth: c.NBoardDepth, Threads: c.Threads, Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	case Egaroucid:
		return egaroucid.New(egaroucid.Options{Path: c.Egaroucid, Threads: c.Threads, Name: c.Name, Logger: c.Logger, StderrLevel: c.StderrLevel})
	}
	return nil, errors.New("no external engine configured")
}
