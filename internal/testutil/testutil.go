// Package testutil holds helpers for flipbot's tests; only _test.go files
// import it.
//
// One file, testutil.go ([SyncBuffer], [LineRing], [Within]). A leaf
// for tests: it imports nothing of the module.
package testutil

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers: a
// log sink or a program's output that a test reads while it is written.
// The zero SyncBuffer is empty and ready to use.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p to the buffer.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what has been written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// LineRing keeps the last lines written to it, as gokrazy keeps a
// service's last 100 log lines: an io.Writer for a slog handler. Safe for
// concurrent use.
type LineRing struct {
	mu      sync.Mutex
	size    int
	lines   []string
	partial string
	total   int
}

// NewLineRing returns a ring of size lines.
func NewLineRing(size int) *LineRing { return &LineRing{size: size} }

// Write adds the complete lines in p (a line may span writes).
func (r *LineRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.partial + string(p)
	for {
		line, rest, ok := strings.Cut(s, "\n")
		if !ok {
			break
		}
		r.lines = append(r.lines, line)
		r.total++
		if len(r.lines) > r.size {
			r.lines = slices.Delete(r.lines, 0, len(r.lines)-r.size)
		}
		s = rest
	}
	r.partial = s
	return len(p), nil
}

// Lines returns the lines kept, oldest first.
func (r *LineRing) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.lines)
}

// Total returns how many lines were ever written.
func (r *LineRing) Total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Contains reports whether a kept line contains s.
func (r *LineRing) Contains(s string) bool {
	return slices.ContainsFunc(r.Lines(), func(l string) bool { return strings.Contains(l, s) })
}

// Within runs f and fails the test when it has not returned after d: a
// call that would block for ever (a named pipe opened for reading waits
// for a writer) fails the test, saying what, instead of hanging it.
func Within(t testing.TB, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still blocked after %v", what, d)
	}
}
