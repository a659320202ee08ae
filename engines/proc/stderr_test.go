package proc

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/engines/internal/enginetest"
)

func TestLineLimiter(t *testing.T) {
	l := newLineLimiter(2, 3)
	t0 := time.Unix(100, 0)
	for range 3 {
		ok, _ := l.allow(t0)
		assert.True(t, ok, "the burst passes")
	}
	for range 5 {
		ok, _ := l.allow(t0)
		assert.False(t, ok, "then nothing until tokens refill")
	}
	ok, dropped := l.allow(t0.Add(500 * time.Millisecond))
	assert.True(t, ok, "one token after half a second at 2 a second")
	assert.Equal(t, 5, dropped, "with the count of the lines dropped meanwhile")
	ok, _ = l.allow(t0.Add(500 * time.Millisecond))
	assert.False(t, ok)
	ok, dropped = l.allow(t0.Add(time.Hour))
	assert.True(t, ok)
	assert.Equal(t, 1, dropped)
	for range 2 {
		ok, _ = l.allow(t0.Add(time.Hour))
		assert.True(t, ok, "refilled up to the burst, no more")
	}
	ok, _ = l.allow(t0.Add(time.Hour))
	assert.False(t, ok)
}

// TestStderrFloodIsBounded: an engine that writes 10,000 stderr lines at
// once gets about the burst of them into the log, and the count of the
// rest; every line is accounted for.
func TestStderrFloodIsBounded(t *testing.T) {
	enginetest.NoLeak(t)
	var log enginetest.Log
	p := start(t, &log, Config{Name: "fake"}, "floodstderr")
	<-p.Done()
	// The readers end at the end of the pipes, which may come after the
	// exit (Windows); Stop would close them mid-way.
	read := make(chan struct{})
	go func() { p.readers.Wait(); close(read) }()
	select {
	case <-read:
	case <-time.After(10 * time.Second):
		t.Error("stderr not read to its end within 10 s")
	}
	p.Stop()
	out := log.String()
	logged := strings.Count(out, "msg=\"engine stderr\" ")
	dropped := 0
	for _, m := range regexp.MustCompile(`dropped=(\d+)`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[1])
		dropped += n
	}
	assert.LessOrEqual(t, logged, stderrBurst+stderrRate*5, "at most the burst and a few seconds' rate")
	assert.Positive(t, dropped)
	assert.Equal(t, 10000, logged+dropped, "every line logged or counted")
}
