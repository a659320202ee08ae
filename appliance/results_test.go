package appliance

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
)

// botResult is a won match of id, as the bot reports it.
func botResult(id int64) bot.Result {
	return bot.Result{MatchID: id, Opponent: fmt.Sprintf("op%d", id), Mode: "std", Outcome: bot.OutcomeWin,
		At: time.Date(2026, 12, 1, 12, 0, int(id), 0, time.UTC)}
}

// result is a won match of id, as the status keeps it.
func result(id int64) state.Result { return resultsOf([]bot.Result{botResult(id)})[0] }

func resultIDs(rs []state.Result) []int64 {
	ids := []int64{}
	for _, r := range rs {
		ids = append(ids, r.MatchID)
	}
	return ids
}

// TestMergeResults: the bot's results are put in front of those kept, none
// twice, at most MaxResults. Before, a new bot's first result replaced
// every result kept.
func TestMergeResults(t *testing.T) {
	many := make([]state.Result, 0, 30)
	for i := 30; i > 0; i-- {
		many = append(many, result(int64(100+i)))
	}
	for _, c := range []struct {
		name      string
		prev, rep []state.Result
		want      []int64
	}{
		{"a new bot's first result", []state.Result{result(2), result(1)}, []state.Result{result(3)}, []int64{3, 2, 1}},
		{"the same bot again", []state.Result{result(3), result(2), result(1)}, []state.Result{result(4), result(3), result(2)}, []int64{4, 3, 2, 1}},
		{"nothing new", []state.Result{result(2), result(1)}, []state.Result{result(2)}, []int64{2, 1}},
		{"bounded", []state.Result{result(1)}, many, resultIDs(many[:MaxResults])},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, resultIDs(mergeResults(c.prev, c.rep)))
		})
	}
}

// TestResultsSurviveSettingsAndRestart: a settings change starts a new
// bot, which reports only its own results; those before stay on the page.
// After a restart of the appliance on the same directory they are read
// back from /perm. Before, the new bot's first result emptied the list and
// a restart started with none.
func TestResultsSurviveSettingsAndRestart(t *testing.T) {
	e := provisioned(t)
	online := bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot", Rating: 1523.4}}
	first := online
	first.Results = []bot.Result{botResult(1)}
	e.player.push(first)
	e.waitFor("the first result", func(s state.Status) bool { return len(s.Results) == 1 })

	e.player.setReport(online) // the new bot knows of no result
	s := e.a.Settings()
	s.MaxMatches = 1
	require.NoError(t, e.a.ApplySettings(s))
	e.player.waitStart(t)
	second := online
	second.Results = []bot.Result{botResult(2)}
	e.player.push(second)
	st := e.waitFor("the second result", func(s state.Status) bool { return len(s.Results) > 0 && s.Results[0].MatchID == 2 })
	assert.Equal(t, []int64{2, 1}, resultIDs(st.Results), "the results before the settings change stay")
	_, body := e.get("/", false)
	assert.Contains(t, body, "op1")

	dir := e.a.cfg.Dir
	e.stop()
	again := startEnv(t, func(cfg *Config, a *app) { cfg.Dir = dir })
	assert.Equal(t, []int64{2, 1}, resultIDs(again.a.hub.Snapshot().Results), "read back at the start")
	again.stop()
}

// TestResultsFileIsBoundedAndChecked: a file of more than MaxResults
// results reads as the newest MaxResults; a damaged, oversized or
// symbolic-link file reads as none, with an error.
func TestResultsFileIsBoundedAndChecked(t *testing.T) {
	dir := t.TempDir()
	f := newResultsFile(dir)
	many := make([]state.Result, 0, 50)
	for i := 50; i > 0; i-- {
		many = append(many, result(int64(i)))
	}
	b, err := json.Marshal(many)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f.Path(), b, 0o600))
	got, err := f.Load()
	require.NoError(t, err)
	assert.Equal(t, resultIDs(many[:MaxResults]), resultIDs(got))

	require.NoError(t, f.Save(many))
	b, err = os.ReadFile(f.Path())
	require.NoError(t, err)
	var saved []state.Result
	require.NoError(t, json.Unmarshal(b, &saved))
	assert.Len(t, saved, MaxResults, "the file is bounded too")

	for name, write := range map[string]func(p string) error{
		"damaged":   func(p string) error { return os.WriteFile(p, []byte(`{"not":"a list"}`), 0o600) },
		"oversized": func(p string) error { return os.WriteFile(p, make([]byte, maxResultsBytes+1), 0o600) },
		"symlink": func(p string) error {
			other := filepath.Join(t.TempDir(), "elsewhere.json")
			if err := os.WriteFile(other, b, 0o600); err != nil {
				return err
			}
			return os.Symlink(other, p)
		},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, os.Remove(f.Path()))
			require.NoError(t, write(f.Path()))
			got, err := f.Load()
			assert.Error(t, err)
			assert.Empty(t, got)
		})
	}
}

// FuzzDecodeResults: any file content gives results or an error, at most
// MaxResults of them, never a panic.
func FuzzDecodeResults(f *testing.F) {
	f.Add([]byte(`[{"match_id":1,"outcome":"win","at":"2026-12-01T12:00:00Z"}]`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := decodeResults(b)
		if err == nil {
			assert.LessOrEqual(t, len(rs), MaxResults)
		}
	})
}
