package arena

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestStalledStreamDoesNotBlock: a stream client that never reads does not
// hold up the API or other bots.
func TestStalledStreamDoesNotBlock(t *testing.T) {
	f := newFixture(t, Config{Bots: []BotConfig{{Name: "house", Builtin: true, Level: 0, Modes: othello.AllModes()}}})
	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET " + StreamPath + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ta\r\n\r\n"))
	require.NoError(t, err)
	// Never read. Play grand matches against the house (big match objects
	// on the stalled stream) through the API.
	a := f.client(t, "ta")
	a.poll()
	matches := 2
	if testing.Short() {
		matches = 1
	}
	for i := 0; i < matches; i++ {
		status, ans := a.call(map[string]any{"action": "agent_challenge", "target_name": "house", "game_mode": "grand"})
		require.Equal(t, 200, status, "%v", ans)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 400 && a.step(); i++ {
			f.clock.Advance(100 * time.Millisecond)
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the API stalled behind a stream that does not read")
	}
	waitIdle(t, f.srv)
}

// TestCloseEndsStreams: Close returns promptly with streams open.
func TestCloseEndsStreams(t *testing.T) {
	f := newFixture(t, Config{})
	sc, status := openStream(t, f, "ta")
	require.Equal(t, 200, status)
	sc.next(t, "hello")
	closed := make(chan struct{})
	go func() { f.srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung")
	}
	select {
	case _, ok := <-sc.lines:
		for ok {
			_, ok = <-sc.lines
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
	// After Close the API answers 503, never hangs.
	b := f.client(t, "tb")
	st, ans := b.call(map[string]any{"action": "agent_poll"})
	assert.Equal(t, http.StatusServiceUnavailable, st)
	assert.Equal(t, "bot match storage unavailable", ans["error"])
}

// TestRunTimesOutWithoutRequests: with the system clock, Run applies a
// timeout although nobody calls the API.
func TestRunTimesOutWithoutRequests(t *testing.T) {
	srv, err := New(Config{
		ClockPerLeg: 150 * time.Millisecond, NoFirstMoveAbort: true, NoDisconnectLoss: true,
		Bots: []BotConfig{
			{Name: "alpha", Token: "ta"},
			{Name: "house", Builtin: true, Level: 0},
		},
	})
	require.NoError(t, err)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Run(ctx, 10*time.Millisecond)
	c := &specClient{t: t, base: ts.URL, token: "ta", hc: http.DefaultClient}
	c.poll()
	id, err := srv.Challenge("alpha", "house", othello.Std)
	require.NoError(t, err)
	ch, stop := srv.Watch()
	defer stop()
	deadline := time.After(10 * time.Second)
	for {
		r, ok := srv.Result(id)
		require.True(t, ok)
		if r.Ended {
			assert.Equal(t, "finished", r.Status)
			assert.Equal(t, "double_timeout", r.FinishReason, "alpha never moves: it times out in both legs")
			assert.Equal(t, 1, r.Winner)
			break
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatal("no timeout applied by Run")
		}
	}
}
