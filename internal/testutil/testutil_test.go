package testutil

import (
	"strings"
	"sync"
	"testing"
)

func TestSyncBufferConcurrentWriters(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("x"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("x", 800) {
		t.Fatalf("got %d bytes, want 800", len(got))
	}
}

func TestLineRingKeepsTheLastLines(t *testing.T) {
	r := NewLineRing(3)
	r.Write([]byte("a\nb\nc"))
	r.Write([]byte("d\ne\n"))
	if got := strings.Join(r.Lines(), ","); got != "b,cd,e" {
		t.Fatalf("lines %q, want b,cd,e", got)
	}
	if r.Total() != 4 || !r.Contains("cd") || r.Contains("a") {
		t.Fatalf("total %d, lines %q", r.Total(), r.Lines())
	}
}
