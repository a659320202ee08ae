package logagg

import (
	"bytes"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/internal/clock/clocktest"
)

// TestLogAggregatesPerKind: 1,000 warnings of one kind and 10 of another
// within an interval are two lines at once and two at its end, whatever
// the ids they name; a quiet interval writes nothing and makes the kind
// quiet again.
func TestLogAggregatesPerKind(t *testing.T) {
	var out bytes.Buffer
	clock := clocktest.New(time.Time{})
	l := New(slog.New(slog.NewTextHandler(&out, nil)), time.Minute, clock)
	lines := func() int { return strings.Count(out.String(), "\n") }
	for i := range 1000 {
		l.Warn("over the limit", "match", i)
	}
	for i := range 10 {
		l.Warn("bad object", "n", i)
	}
	assert.Equal(t, 2, lines(), "the first of each kind at once: %s", out.String())
	assert.Contains(t, out.String(), "match=0")
	clock.Advance(time.Minute)
	assert.Equal(t, 4, lines())
	assert.Contains(t, out.String(), `msg="over the limit" more=999 within=1m0s match=999`)
	assert.Contains(t, out.String(), `msg="bad object" more=9 within=1m0s n=9`)
	l.Warn("over the limit", "match", 1000)
	clock.Advance(time.Minute)
	assert.Equal(t, 5, lines(), "one more in the next interval: its count at the end")
	assert.Contains(t, out.String(), "more=1 within=1m0s match=1000")
	clock.Advance(time.Hour)
	assert.Equal(t, 5, lines(), "quiet")
	l.Warn("over the limit", "match", 1001)
	assert.Equal(t, 6, lines(), "after a quiet interval, at once")
}

// TestInfoKeepsItsLevel: an Info kind is counted like a warning, at Info.
func TestInfoKeepsItsLevel(t *testing.T) {
	var out bytes.Buffer
	clock := clocktest.New(time.Time{})
	l := New(slog.New(slog.NewTextHandler(&out, nil)), time.Minute, clock)
	for i := range 3 {
		l.Info("rejecting", "match", i)
	}
	clock.Advance(time.Minute)
	assert.Equal(t, "level=INFO msg=rejecting match=0\nlevel=INFO msg=rejecting more=2 within=1m0s match=2\n",
		regexpTime.ReplaceAllString(out.String(), ""))
}

// regexpTime matches the time attribute of a text log line.
var regexpTime = regexp.MustCompile(`time=\S+ `)
