package arena

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

type streamConn struct {
	resp   *http.Response
	lines  chan map[string]any
	cancel context.CancelFunc
}

func openStream(t *testing.T, f *fixture, token string) (*streamConn, int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.ts.URL+StreamPath, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode
	}
	sc := &streamConn{resp: resp, lines: make(chan map[string]any, 100), cancel: cancel}
	go func() {
		defer close(sc.lines)
		r := bufio.NewScanner(resp.Body)
		r.Buffer(make([]byte, 1<<20), 1<<20)
		for r.Scan() {
			var ev map[string]any
			if json.Unmarshal(r.Bytes(), &ev) == nil {
				sc.lines <- ev
			}
		}
	}()
	t.Cleanup(sc.close)
	return sc, resp.StatusCode
}

func (sc *streamConn) close() {
	sc.cancel()
	sc.resp.Body.Close()
}

// next returns the next event of the given type, skipping others.
func (sc *streamConn) next(t *testing.T, typ string) map[string]any {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-sc.lines:
			require.True(t, ok, "stream closed while waiting for %s", typ)
			if ev["type"] == typ {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %s event", typ)
		}
	}
}

// TestStream: hello, match events (whole object; human: id, kind,
// room_id), pings every 10 s of server time, 3 streams at most, online
// while open.
func TestStream(t *testing.T) {
	f := newFixture(t, Config{})
	_, status := openStream(t, f, "wrong")
	assert.Equal(t, http.StatusUnauthorized, status)

	sa, status := openStream(t, f, "ta")
	require.Equal(t, http.StatusOK, status)
	hello := sa.next(t, "hello")
	assert.Equal(t, float64(1), hello["bot_id"])
	assert.Equal(t, float64(t0.UnixMilli()), hello["server_now_ms"])

	sb, _ := openStream(t, f, "tb")
	sb.next(t, "hello")
	b := f.client(t, "tb")
	a := f.client(t, "ta")
	// Online through the streams alone: no poll for a long while.
	f.clock.Advance(time.Minute)
	status2, ans := b.call(map[string]any{"action": "agent_challenge", "target_name": "alpha"})
	require.Equal(t, 200, status2, "%v", ans)
	ev := sa.next(t, "match")
	m := ev["match"].(map[string]any)
	assert.Equal(t, ans["match_id"], m["id"])
	assert.Equal(t, "pending", m["status"])
	assert.Contains(t, m, "state")

	// Pings every 10 s of server time (one was due at once: a minute passed).
	p0 := sa.next(t, "ping")
	assert.Equal(t, float64(t0.Add(60*time.Second).UnixMilli()), p0["server_now_ms"])
	f.clock.Advance(9 * time.Second)
	f.srv.Tick()
	f.clock.Advance(time.Second)
	f.srv.Tick()
	p := sa.next(t, "ping")
	assert.Equal(t, float64(t0.Add(70*time.Second).UnixMilli()), p["server_now_ms"])

	// Human match events carry only id, kind, room_id.
	id, err := f.srv.CreateHuman(HumanOptions{Bot: "alpha", Mode: othello.Std})
	require.NoError(t, err)
	ev = sa.next(t, "match")
	assert.Equal(t, map[string]any{"id": float64(id), "kind": "human", "room_id": float64(-id)}, ev["match"])

	// At most 3 streams per bot.
	openStream(t, f, "ta")
	openStream(t, f, "ta")
	_, status = openStream(t, f, "ta")
	assert.Equal(t, http.StatusTooManyRequests, status)

	// Closing every stream: offline after the poll grace.
	a.poll()
	for _, c := range []*streamConn{sa} {
		c.close()
	}
	sb.close()
	require.Eventually(t, func() bool {
		f.srv.mu.Lock()
		defer f.srv.mu.Unlock()
		return f.srv.bots[1].streams == 0
	}, 5*time.Second, time.Millisecond)
	f.clock.Advance(DefaultPollGrace + time.Second)
	p2 := a.poll()
	assert.False(t, p2.Bots[1].Online, "beta offline once its stream closed")
}

// TestStreamDrivenPlay: clients that poll only when a match event arrives
// play a whole match in every mode, so every change that needs an answer
// is announced on the stream.
func TestStreamDrivenPlay(t *testing.T) {
	modes := []othello.Mode{othello.Std, othello.Reversi, othello.Grand}
	if testing.Short() {
		modes = modes[:1]
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t, Config{})
			sa, _ := openStream(t, f, "ta")
			sb, _ := openStream(t, f, "tb")
			sa.next(t, "hello")
			sb.next(t, "hello")
			a, b := f.client(t, "ta"), f.client(t, "tb")
			status, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2, "game_mode": mode.String()})
			require.Equal(t, 200, status, "%v", ans)
			id := int64(ans["match_id"].(float64))
			type side struct {
				c  *specClient
				sc *streamConn
			}
			sides := []side{{a, sa}, {b, sb}}
			deadline := time.After(60 * time.Second)
			for steps := 0; ; steps++ {
				if m := a.match(id); m.Status == "finished" {
					break
				}
				if testing.Short() && steps == 40 {
					// Enough to show progress driven by events alone.
					m := a.match(id)
					for _, l := range m.State.Legs {
						assert.GreaterOrEqual(t, len(l.History), 10)
					}
					return
				}
				// Wait for an event on either stream, then let that side act.
				select {
				case ev := <-sa.lines:
					if ev["type"] == "match" {
						sides[0].c.step()
					}
				case ev := <-sb.lines:
					if ev["type"] == "match" {
						sides[1].c.step()
					}
				case <-deadline:
					t.Fatalf("match stalled: %+v", a.match(id).State)
				}
			}
			m := a.match(id)
			assert.Equal(t, "discs", *m.State.FinishReason)
		})
	}
}
