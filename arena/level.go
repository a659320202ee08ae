package arena

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// Built-in strength levels (a built-in bot's engine_level):
//
//	0       a random legal move (arena.Player)
//	1       the greedy move (arena.Player)
//	2…59    the built-in search engine to that depth, within a share of the clock
//	60      the built-in search engine at full strength, managing its clock
const (
	LevelRandom = 0
	LevelGreedy = 1
	LevelMax    = 60
)

// DefaultBuiltinLevel is the level of a built-in bot when none is given.
const DefaultBuiltinLevel = 4

// Level is one line of the built-in levels' table, as the page and
// `flipbot-arena serve -h` explain them.
type Level struct {
	Level string // "0", "2–59"
	Plays string // what a bot at that level plays
}

// Levels explains the built-in levels: what LEVEL in --builtin
// NAME:LEVEL (a built-in bot's engine_level) plays.
func Levels() []Level {
	return []Level{
		{"0", "a random legal move, at once"},
		{"1", "the greedy move: most discs after it (fewest in anti), at once"},
		{"2–59", "the built-in search engine looking that many moves (plies) ahead, within a share of its clock; " +
			"the default is " + strconv.Itoa(DefaultBuiltinLevel) + ", so --builtin house:4 is a bot named house searching 4 moves ahead"},
		{"60", "the built-in search engine at full strength, managing its clock itself"},
	}
}

// Engines makes the engines of built-in bots. One search engine (with its
// table and core pool) is shared by every built-in bot at a search level.
// It is safe for concurrent use.
type Engines struct {
	threads int
	hashMB  int
	mu      sync.Mutex
	eng     *search.Engine // made on first use
}

// NewEngines returns a maker whose search engine uses threads cores
// (half the machine when ≤ 0) and hashMB MiB of table (32 when ≤ 0).
func NewEngines(threads, hashMB int) *Engines {
	if threads <= 0 {
		threads = max(1, runtime.NumCPU()/2)
	}
	if hashMB <= 0 {
		hashMB = 32
	}
	return &Engines{threads: threads, hashMB: hashMB}
}

// At returns an engine playing at level.
func (e *Engines) At(level int) engines.Engine {
	if level <= LevelGreedy {
		return NewPlayer(level)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.eng == nil {
		e.eng = search.New(search.Options{Threads: e.threads, HashMB: e.hashMB})
	}
	return &leveled{eng: e.eng, level: min(level, LevelMax)}
}

// leveled plays the search engine at a level.
type leveled struct {
	eng   *search.Engine
	level int
}

// Name tells the level.
func (l *leveled) Name() string {
	if l.level >= LevelMax {
		return "flipbot search (full strength)"
	}
	return fmt.Sprintf("flipbot search (depth %d)", l.level)
}

// Supports is the search engine's.
func (l *leveled) Supports(m othello.Mode) bool { return l.eng.Supports(m) }

// Close does nothing: the search engine is shared.
func (l *leveled) Close() error { return nil }

// Move searches to the level's depth within a share of the clock (at full
// strength: the engine's own time management).
func (l *leveled) Move(ctx context.Context, req engines.Request) (engines.Result, error) {
	if l.level >= LevelMax {
		return l.eng.Move(ctx, req)
	}
	pos := req.Position
	if pos.Legal().IsZero() {
		return engines.Result{Move: othello.Pass}, nil
	}
	share := req.Remaining / time.Duration(pos.Empties().Count()/2+1)
	if req.Budget > 0 && share > req.Budget {
		share = req.Budget
	}
	share = max(share, 5*time.Millisecond)
	return l.eng.Search(ctx, pos, search.Limits{Time: share, Depth: l.level})
}
