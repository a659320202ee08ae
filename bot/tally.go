package bot

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Causes of a fallback move (Search.Cause, MoveCounts.Fallbacks): why the
// engine's move was not played.
const (
	CauseTimeout     = "timeout"     // no answer within its time
	CauseFailed      = "failed"      // the engine returned an error (exited, crashed, …)
	CauseIllegal     = "illegal"     // an illegal answer
	CauseUnavailable = "unavailable" // no engine could be made or started
	CauseStarting    = "starting"    // still loading (kept; it answers the next move)
	CauseNoTime      = "no_time"     // the clock left no time to ask it
	CauseNoPosition  = "no_position" // the leg made no position the engine could take
	CauseRefused     = "refused"     // the server refused the engine's move
)

// engineFault reports whether a fallback's cause is the engine's own
// failure (as opposed to the clock, the server or a start-up in progress):
// those count towards the engine's being broken (failingAfter).
func engineFault(cause string) bool {
	switch cause {
	case CauseTimeout, CauseFailed, CauseIllegal, CauseUnavailable:
		return true
	}
	return false
}

// failingAfter is how many own moves in a row, over all matches, the
// engine must fail (engineFault) before the bot stops accepting matches
// until it answers a probe again. Six: more than the one or two a slow
// start or a loaded machine can cost, and fewer than a leg's moves (a
// leg lost to fallbacks is about thirty).
const failingAfter = 6

// MoveCounts counts how the bot's sent moves in a match were chosen.
type MoveCounts struct {
	// Engine counts the engine's moves, Forced the moves without a choice.
	Engine int
	Forced int
	// Fallbacks counts the built-in fallback moves by cause (Cause*).
	Fallbacks map[string]int
}

// FallbackTotal is the number of fallback moves of every cause.
func (c MoveCounts) FallbackTotal() int {
	n := 0
	for _, v := range c.Fallbacks {
		n += v
	}
	return n
}

// String is the counts as a person reads them: "30 engine, 2 forced, 3
// fallback (timeout 2, failed 1)".
func (c MoveCounts) String() string {
	s := fmt.Sprintf("%d engine, %d forced, %d fallback", c.Engine, c.Forced, c.FallbackTotal())
	if len(c.Fallbacks) == 0 {
		return s
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c.Fallbacks)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, c.Fallbacks[k]))
	}
	return s + " (" + strings.Join(parts, ", ") + ")"
}

// clone returns a deep copy.
func (c MoveCounts) clone() MoveCounts {
	c.Fallbacks = maps.Clone(c.Fallbacks)
	return c
}

// moveTally counts a match's moves as its tasks send them, and remembers
// which fallback causes were already told at the default log level. The
// match's tasks write it, the loop reads it: it has its own mutex. A nil
// moveTally counts nothing (a match tracked without one, in tests).
type moveTally struct {
	mu     sync.Mutex
	counts MoveCounts
	told   map[string]bool
	// over is set when the match's "match finished" line is written:
	// its tasks' later lines go to debug level.
	over atomic.Bool
}

// firstOf reports whether cause is the first fallback of its kind in the
// match (the one logged as a warning).
func (t *moveTally) firstOf(cause string) bool {
	if t == nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.told[cause] {
		return false
	}
	if t.told == nil {
		t.told = map[string]bool{}
	}
	t.told[cause] = true
	return true
}

// add counts a sent move.
func (t *moveTally) add(source, cause string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch source {
	case "engine":
		t.counts.Engine++
	case "forced":
		t.counts.Forced++
	default:
		if t.counts.Fallbacks == nil {
			t.counts.Fallbacks = map[string]int{}
		}
		t.counts.Fallbacks[cause]++
	}
}

// snapshot returns the counts so far.
func (t *moveTally) snapshot() MoveCounts {
	if t == nil {
		return MoveCounts{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts.clone()
}

// end marks the match reported finished (the loop).
func (t *moveTally) end() {
	if t != nil {
		t.over.Store(true)
	}
}

// ended reports whether the match was reported finished.
func (t *moveTally) ended() bool { return t != nil && t.over.Load() }
