package nboard

import (
	"context"
	"testing"
	"time"

	"flipbot.dev/flipbot/engines/internal/enginetest"
)

// BenchmarkMove measures a move's round trip (ping/pong, set game, go,
// answer) through the adapter to an engine that answers at once.
func BenchmarkMove(b *testing.B) {
	e, err := New(Options{Command: fakeCommand(b, "ok")})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	positions := enginetest.Positions(b, 8)
	ctx := context.Background()
	if _, err := e.Move(ctx, request(positions[0], 10*time.Second)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := e.Move(ctx, request(positions[i%len(positions)], 10*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
}
