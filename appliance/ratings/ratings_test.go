package ratings

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// add is h.Add that must not fail.
func add(t *testing.T, h *History, bot int64, s Sample) bool {
	t.Helper()
	changed, err := h.Add(bot, s)
	require.NoError(t, err)
	return changed
}

func TestAddKeepsChangesOnly(t *testing.T) {
	var h History
	assert.True(t, add(t, &h, 9, Sample{At: t0, Rating: 1500, RD: 350}))
	assert.False(t, add(t, &h, 9, Sample{At: t0.Add(time.Minute), Rating: 1500, RD: 350}), "the same figures again")
	assert.True(t, add(t, &h, 9, Sample{At: t0.Add(2 * time.Minute), Rating: 1516, RD: 320, Wins: 1}))
	assert.True(t, add(t, &h, 9, Sample{At: t0.Add(3 * time.Minute), Rating: 1501, RD: 300, Wins: 1, Losses: 1}))
	assert.True(t, add(t, &h, 9, Sample{At: t0.Add(4 * time.Minute), Rating: 1501, RD: 290, Wins: 1, Losses: 1, Draws: 1}))
	assert.True(t, add(t, &h, 9, Sample{At: t0.Add(5 * time.Minute), Rating: 1530, RD: 280, Wins: 3, Losses: 1, Draws: 1}))
	require.Len(t, h.Samples, 5)
	assert.Equal(t, []string{"", Win, Loss, Draw, Win}, []string{h.Result(0), h.Result(1), h.Result(2), h.Result(3), h.Result(4)})
	assert.Equal(t, "", h.Result(5))

	assert.True(t, add(t, &h, 10, Sample{At: t0, Rating: 1200}), "another bot starts its own history")
	assert.Equal(t, int64(10), h.Bot)
	assert.Len(t, h.Samples, 1)
}

// TestAddDropsBadSamples: a sample out of range is not kept, and the
// history stays as it was. Before, the server's wins 2,000,000 or RD −5
// were kept and saved; the reader refused them at the next start, which
// started a new history over up to 1,000 samples.
func TestAddDropsBadSamples(t *testing.T) {
	var h History
	add(t, &h, 9, Sample{At: t0, Rating: 1500, RD: 350})
	for name, s := range map[string]Sample{
		"negative RD":   {At: t0.Add(time.Hour), Rating: 1500, RD: -5},
		"huge wins":     {At: t0.Add(time.Hour), Rating: 1500, RD: 300, Wins: 2_000_000},
		"negative loss": {At: t0.Add(time.Hour), Rating: 1500, RD: 300, Losses: -1},
		"NaN rating":    {At: t0.Add(time.Hour), Rating: math.NaN(), RD: 300},
		"infinite RD":   {At: t0.Add(time.Hour), Rating: 1500, RD: math.Inf(1)},
		"clock not set": {At: time.Unix(0, 0), Rating: 1510, RD: 300},
		"year 10000":    {At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), Rating: 1510, RD: 300},
	} {
		changed, err := h.Add(9, s)
		require.ErrorIs(t, err, ErrBadSample, name)
		assert.False(t, changed, name)
	}
	require.Len(t, h.Samples, 1, "the history is as it was")
	b, err := Encode(h)
	require.NoError(t, err)
	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, 0, back.Skipped)
	assert.Equal(t, h.Samples[0].Rating, back.Samples[0].Rating)
}

// TestFutureSamplesDoNotStopTheHistory: a sample dated far ahead (a card
// edit, a clock once far ahead) does not stop the history; the next sample
// re-dates it to its own time, keeping the order in which they were taken.
// Before, every later sample was refused as older than it, for good.
func TestFutureSamplesDoNotStopTheHistory(t *testing.T) {
	var h History
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	add(t, &h, 9, Sample{At: t0, Rating: 1500, RD: 350})
	add(t, &h, 9, Sample{At: future, Rating: 1510, RD: 340, Wins: 1})
	assert.True(t, add(t, &h, 9, Sample{At: t0.Add(time.Hour), Rating: 1495, RD: 330, Wins: 1, Losses: 1}))
	assert.True(t, add(t, &h, 9, Sample{At: t0.Add(2 * time.Hour), Rating: 1505, RD: 320, Wins: 2, Losses: 1}))
	require.Len(t, h.Samples, 4)
	assert.Equal(t, []float64{1500, 1510, 1495, 1505}, ratingsOf(h), "in the order taken")
	assert.Equal(t, t0.Add(time.Hour), h.Samples[1].At, "the future one re-dated to the next one's time")
	assertInOrder(t, h)
	assert.Equal(t, []string{"", Win, Loss, Win}, []string{h.Result(0), h.Result(1), h.Result(2), h.Result(3)})

	// The same, read from a file written with the future date in it.
	in := `{"bot_id":9,"samples":[
		{"at":"2026-12-01T12:00:00Z","rating":1500,"rd":350},
		{"at":"9999-01-01T00:00:00Z","rating":1510,"rd":340,"wins":1},
		{"at":"2026-12-01T13:00:00Z","rating":1495,"rd":330,"wins":1,"losses":1}]}`
	back, err := Parse([]byte(in))
	require.NoError(t, err)
	assert.Equal(t, []float64{1500, 1510, 1495}, ratingsOf(back))
	assertInOrder(t, back)
	assert.True(t, add(t, &back, 9, Sample{At: t0.Add(2 * time.Hour), Rating: 1505, RD: 320, Wins: 2, Losses: 1}),
		"a later sample is kept")
}

func ratingsOf(h History) []float64 {
	var r []float64
	for _, s := range h.Samples {
		r = append(r, s.Rating)
	}
	return r
}

func assertInOrder(t *testing.T, h History) {
	t.Helper()
	for i := 1; i < len(h.Samples); i++ {
		assert.False(t, h.Samples[i].At.Before(h.Samples[i-1].At), "sample %d is older than the one before", i+1)
	}
}

func TestAddIsBounded(t *testing.T) {
	var h History
	for i := range MaxSamples + 50 {
		add(t, &h, 1, Sample{At: t0.Add(time.Duration(i) * time.Minute), Rating: float64(1000 + i)})
	}
	require.Len(t, h.Samples, MaxSamples)
	assert.Equal(t, float64(1050), h.Samples[0].Rating, "the oldest went first")
	b, err := Encode(h)
	require.NoError(t, err)
	assert.Less(t, len(b), MaxBytes/2)
}

func TestParseRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":      `{"bot_id":1,"samples":[`,
		"bot id":        `{"bot_id":-1,"samples":[]}`,
		"not an object": `[1,2]`,
		"samples":       `{"bot_id":1,"samples":{}}`,
	} {
		_, err := Parse([]byte(in))
		require.ErrorIs(t, err, ErrBadHistory, name)
	}
	_, err := Parse(bytes.Repeat([]byte(" "), MaxBytes+1))
	require.ErrorIs(t, err, ErrBadHistory, "too large")
}

// TestParseSkipsBadSamples: a bad sample is skipped, not the whole file;
// beyond MaxSamples the oldest are. Before, one bad sample made the whole
// history unreadable, and the next sample replaced it.
func TestParseSkipsBadSamples(t *testing.T) {
	good := func(r int) string { return fmt.Sprintf(`{"at":"2026-12-01T00:00:00Z","rating":%d,"rd":60}`, r) }
	for name, bad := range map[string]string{
		"negative":       `{"at":"2026-12-01T00:00:00Z","rating":-5}`,
		"negative RD":    `{"at":"2026-12-01T00:00:00Z","rating":1500,"rd":-5}`,
		"huge":           `{"at":"2026-12-01T00:00:00Z","rating":1e300}`,
		"too large":      `{"at":"2026-12-01T00:00:00Z","rating":1e400}`,
		"huge wins":      `{"at":"2026-12-01T00:00:00Z","rating":1,"wins":2000000}`,
		"negative count": `{"at":"2026-12-01T00:00:00Z","rating":1,"wins":-1}`,
		"fractional":     `{"at":"2026-12-01T00:00:00Z","rating":1,"wins":1.5}`,
		"a string":       `{"at":"2026-12-01T00:00:00Z","rating":"x"}`,
		"no time":        `{"rating":1}`,
		"bad time":       `{"at":"yesterday","rating":1}`,
		"null":           `null`,
		"a number":       `7`,
	} {
		in := `{"bot_id":1,"samples":[` + good(1500) + "," + bad + "," + good(1510) + `]}`
		h, err := Parse([]byte(in))
		require.NoError(t, err, name)
		assert.Equal(t, []float64{1500, 1510}, ratingsOf(h), name)
		assert.Equal(t, 1, h.Skipped, name)
	}
	var many bytes.Buffer
	many.WriteString(`{"bot_id":1,"samples":[`)
	for i := range MaxSamples + 3 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(good(i))
	}
	many.WriteString(`]}`)
	h, err := Parse(many.Bytes())
	require.NoError(t, err)
	require.Len(t, h.Samples, MaxSamples)
	assert.Equal(t, float64(3), h.Samples[0].Rating, "the oldest are skipped")
	assert.Equal(t, 3, h.Skipped)
}

func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir)
	h, err := f.Load()
	require.NoError(t, err, "no file: an empty history")
	assert.Empty(t, h.Samples)
	add(t, &h, 9, Sample{At: t0, Rating: 1500, RD: 350})
	add(t, &h, 9, Sample{At: t0.Add(time.Hour), Rating: 1520, RD: 330, Wins: 1})
	require.NoError(t, f.Save(h))
	back, err := f.Load()
	require.NoError(t, err)
	assert.Equal(t, h, back)
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(`{"samples":[{"rating":"x"}`), 0o600))
	back, err = f.Load()
	require.Error(t, err, "a damaged file is said")
	assert.Empty(t, back.Samples, "and an empty history used")
}

// FuzzParse: the history reader never panics, and what it accepts is
// bounded, every sample passes Check, the times never decrease, and it
// reads back the same.
func FuzzParse(f *testing.F) {
	var h History
	h.Add(9, Sample{At: t0, Rating: 1500, RD: 350})
	h.Add(9, Sample{At: t0.Add(time.Hour), Rating: 1520, RD: 330, Wins: 1})
	b, _ := Encode(h)
	f.Add(b)
	f.Add([]byte(`{"bot_id":1,"samples":[{"at":"2026-12-01T00:00:00Z","rating":NaN}]}`))
	f.Add([]byte(`{"bot_id":1,"samples":[{"at":"9999-12-01T00:00:00Z","rating":1},{"at":"2026-12-01T00:00:00+09:00","rating":2,"rd":-5},{"at":"2026-12-01T00:00:00Z","rating":3}]}`))
	f.Add([]byte(`{"samples":null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrBadHistory) {
				t.Fatalf("an error that is not ErrBadHistory: %v", err)
			}
			return
		}
		if len(h.Samples) > MaxSamples {
			t.Fatalf("accepted %d samples", len(h.Samples))
		}
		for i, s := range h.Samples {
			if err := s.Check(); err != nil {
				t.Fatalf("sample %d kept: %v", i+1, err)
			}
			if i > 0 && s.At.Before(h.Samples[i-1].At) {
				t.Fatalf("sample %d is older than the one before", i+1)
			}
			_ = h.Result(i)
		}
		out, err := Encode(h)
		if err != nil {
			t.Fatalf("an accepted history does not encode: %v", err)
		}
		back, err := Parse(out)
		if err != nil {
			t.Fatalf("an accepted history does not read back: %v", err)
		}
		if back.Skipped != 0 || len(back.Samples) != len(h.Samples) {
			t.Fatalf("read back %d samples (%d skipped) of %d", len(back.Samples), back.Skipped, len(h.Samples))
		}
	})
}

// TestAsOf: samples dated after now are shown as of now, in their order;
// a clock not set yet (before the first sample) changes nothing.
func TestAsOf(t *testing.T) {
	in := `{"bot_id":9,"samples":[
		{"at":"2026-12-01T12:00:00Z","rating":1500,"rd":350},
		{"at":"2026-12-01T13:00:00Z","rating":1510,"rd":340,"wins":1},
		{"at":"9999-01-01T00:00:00Z","rating":1495,"rd":330,"wins":1,"losses":1}]}`
	h, err := Parse([]byte(in))
	require.NoError(t, err)
	now := t0.Add(90 * time.Minute)
	unset := h
	unset.Samples = append([]Sample(nil), h.Samples...)
	unset.AsOf(time.Unix(0, 0))
	assert.Equal(t, h.Samples, unset.Samples, "a clock before the first sample is not set: nothing changes")
	h.AsOf(now)
	assert.Equal(t, []time.Time{t0, t0.Add(time.Hour), now}, []time.Time{h.Samples[0].At, h.Samples[1].At, h.Samples[2].At})
	assertInOrder(t, h)
}
