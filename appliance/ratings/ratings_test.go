package ratings

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func TestAddKeepsChangesOnly(t *testing.T) {
	var h History
	assert.True(t, h.Add(9, Sample{At: t0, Rating: 1500, RD: 350}))
	assert.False(t, h.Add(9, Sample{At: t0.Add(time.Minute), Rating: 1500, RD: 350}), "the same figures again")
	assert.True(t, h.Add(9, Sample{At: t0.Add(2 * time.Minute), Rating: 1516, RD: 320, Wins: 1}))
	assert.False(t, h.Add(9, Sample{At: t0, Rating: 1400, RD: 300, Losses: 1}), "older than the last")
	assert.True(t, h.Add(9, Sample{At: t0.Add(3 * time.Minute), Rating: 1501, RD: 300, Wins: 1, Losses: 1}))
	assert.True(t, h.Add(9, Sample{At: t0.Add(4 * time.Minute), Rating: 1501, RD: 290, Wins: 1, Losses: 1, Draws: 1}))
	assert.True(t, h.Add(9, Sample{At: t0.Add(5 * time.Minute), Rating: 1530, RD: 280, Wins: 3, Losses: 1, Draws: 1}))
	require.Len(t, h.Samples, 5)
	assert.Equal(t, []string{"", Win, Loss, Draw, Win}, []string{h.Result(0), h.Result(1), h.Result(2), h.Result(3), h.Result(4)})
	assert.Equal(t, "", h.Result(5))

	assert.True(t, h.Add(10, Sample{At: t0, Rating: 1200}), "another bot starts its own history")
	assert.Equal(t, int64(10), h.Bot)
	assert.Len(t, h.Samples, 1)
}

func TestAddIsBounded(t *testing.T) {
	var h History
	for i := range MaxSamples + 50 {
		h.Add(1, Sample{At: t0.Add(time.Duration(i) * time.Minute), Rating: float64(1000 + i)})
	}
	require.Len(t, h.Samples, MaxSamples)
	assert.Equal(t, float64(1050), h.Samples[0].Rating, "the oldest went first")
	b, err := Encode(h)
	require.NoError(t, err)
	assert.Less(t, len(b), MaxBytes/2)
}

func TestParseRefuses(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":       `{"bot_id":1,"samples":[`,
		"negative":       `{"bot_id":1,"samples":[{"at":"2026-12-01T00:00:00Z","rating":-5}]}`,
		"huge":           `{"bot_id":1,"samples":[{"at":"2026-12-01T00:00:00Z","rating":1e300}]}`,
		"negative count": `{"bot_id":1,"samples":[{"at":"2026-12-01T00:00:00Z","rating":1,"wins":-1}]}`,
		"out of order":   `{"bot_id":1,"samples":[{"at":"2026-12-02T00:00:00Z","rating":1},{"at":"2026-12-01T00:00:00Z","rating":1}]}`,
		"bot id":         `{"bot_id":-1,"samples":[]}`,
	} {
		_, err := Parse([]byte(in))
		require.ErrorIs(t, err, ErrBadHistory, name)
	}
	_, err := Parse(bytes.Repeat([]byte(" "), MaxBytes+1))
	require.ErrorIs(t, err, ErrBadHistory, "too large")
	var many bytes.Buffer
	many.WriteString(`{"bot_id":1,"samples":[`)
	for i := range MaxSamples + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"at":"2026-12-01T00:00:00Z","rating":1}`)
	}
	many.WriteString(`]}`)
	_, err = Parse(many.Bytes())
	require.ErrorIs(t, err, ErrBadHistory, "too many samples")
}

func TestFileRoundTrip(t *testing.T) {
	dir := t.TempDir()
	f := NewFile(dir)
	h, err := f.Load()
	require.NoError(t, err, "no file: an empty history")
	assert.Empty(t, h.Samples)
	h.Add(9, Sample{At: t0, Rating: 1500, RD: 350})
	h.Add(9, Sample{At: t0.Add(time.Hour), Rating: 1520, RD: 330, Wins: 1})
	require.NoError(t, f.Save(h))
	back, err := f.Load()
	require.NoError(t, err)
	assert.Equal(t, h, back)
	require.NoError(t, os.WriteFile(filepath.Join(dir, FileName), []byte(`{"samples":[{"rating":"x"}]}`), 0o600))
	back, err = f.Load()
	require.Error(t, err, "a damaged file is said")
	assert.Empty(t, back.Samples, "and an empty history used")
}

// FuzzParse: the history reader never panics, and what it accepts is
// bounded and reads back.
func FuzzParse(f *testing.F) {
	var h History
	h.Add(9, Sample{At: t0, Rating: 1500, RD: 350})
	h.Add(9, Sample{At: t0.Add(time.Hour), Rating: 1520, RD: 330, Wins: 1})
	b, _ := Encode(h)
	f.Add(b)
	f.Add([]byte(`{"bot_id":1,"samples":[{"at":"2026-12-01T00:00:00Z","rating":NaN}]}`))
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
		for i := range h.Samples {
			_ = h.Result(i)
		}
		out, err := Encode(h)
		if err != nil {
			t.Fatalf("an accepted history does not encode: %v", err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("an accepted history does not read back: %v", err)
		}
	})
}
