package appliance

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
)

// The recent results kept on /perm, next to the rating history.
const (
	// ResultsFileName is the file of the recent results in the appliance's
	// directory.
	ResultsFileName = "recent-results.json"
	// MaxResults is how many recent results the status and the file keep,
	// newest first (as many as the bot keeps, bot.Options.Results).
	MaxResults = 20
	// maxResultsBytes bounds the file read: 20 results are a few kB.
	maxResultsBytes = 64 << 10
)

// newResultsFile returns the file of the recent results in dir. A damaged
// file reads as none (Load's error says why); more than MaxResults entries
// are cut to the newest MaxResults.
func newResultsFile(dir string) *store.File[[]state.Result] {
	return store.NewFile(dir, store.Format[[]state.Result]{
		Name: ResultsFileName, What: "recent results",
		Encode: func(rs []state.Result) ([]byte, error) {
			return json.MarshalIndent(boundResults(rs), "", "  ")
		},
		Decode:   decodeResults,
		Default:  func() []state.Result { return []state.Result{} },
		MaxBytes: maxResultsBytes,
	})
}

// decodeResults parses the results file: a JSON array of results, newest
// first, of which the first MaxResults are kept.
func decodeResults(b []byte) ([]state.Result, error) {
	var rs []state.Result
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("not a list of results: %w", err)
	}
	if rs == nil {
		rs = []state.Result{}
	}
	return boundResults(rs), nil
}

// boundResults returns the newest MaxResults of rs (newest first).
func boundResults(rs []state.Result) []state.Result {
	if len(rs) > MaxResults {
		rs = rs[:MaxResults]
	}
	return rs
}

// mergeResults returns the results kept before (prev) with those of the
// bot's report (rep, newest first) that prev does not hold put in front:
// a bot started anew (new settings, a new token, a restart) reports only
// its own results, and those before it stay. At most MaxResults are kept.
func mergeResults(prev, rep []state.Result) []state.Result {
	type key struct {
		id int64
		at int64
	}
	seen := make(map[key]bool, len(prev))
	for _, r := range prev {
		seen[key{r.MatchID, r.At.UnixNano()}] = true
	}
	var fresh []state.Result
	for _, r := range rep {
		if !seen[key{r.MatchID, r.At.UnixNano()}] {
			fresh = append(fresh, r)
		}
	}
	if len(fresh) == 0 {
		return slices.Clone(prev)
	}
	return boundResults(append(fresh, prev...))
}

// resultsKeeper saves the recent results to /perm whenever they change.
// Safe for concurrent use; mu guards last and failing.
type resultsKeeper struct {
	file *store.File[[]state.Result]
	log  *slog.Logger

	mu      sync.Mutex
	last    []state.Result
	failing bool // the last save failed (logged once until one succeeds)
}

// newResultsKeeper reads the results kept in dir (none when there are none
// or the file is damaged, which is logged).
func newResultsKeeper(dir string, fs store.FS, log *slog.Logger) (*resultsKeeper, []state.Result) {
	f := newResultsFile(dir)
	f.FS = fs
	rs, err := f.Load()
	if err != nil {
		log.Warn("recent results unreadable; starting without them", "err", err)
	}
	return &resultsKeeper{file: f, log: log, last: rs}, slices.Clone(rs)
}

// observe saves rs when it differs from what was saved last.
func (k *resultsKeeper) observe(rs []state.Result) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if sameResults(k.last, rs) {
		return
	}
	if err := k.file.Save(rs); err != nil {
		if !k.failing {
			k.log.Warn("recent results not saved; kept in memory", "err", err)
		}
		k.failing = true
		return
	}
	k.failing = false
	k.last = slices.Clone(rs)
}

// sameResults reports whether a and b list the same matches in the same
// order.
func sameResults(a, b []state.Result) bool {
	return slices.EqualFunc(a, b, func(x, y state.Result) bool {
		return x.MatchID == y.MatchID && x.At.Equal(y.At)
	})
}
