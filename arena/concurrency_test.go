package arena

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestManyConcurrentBots: many bots challenge, accept and play at once
// with streams open and the page being read; run under -race.
func TestManyConcurrentBots(t *testing.T) {
	pairs := 8
	if testing.Short() {
		pairs = 1
	}
	var bots []BotConfig
	for i := 0; i < 2*pairs; i++ {
		bots = append(bots, BotConfig{Name: fmt.Sprintf("bot%02d", i), Token: fmt.Sprintf("tok%02d", i), Modes: othello.AllModes()})
	}
	bots = append(bots, BotConfig{Name: "house", Builtin: true, Level: 1, Modes: othello.AllModes()})
	f := newFixture(t, Config{Bots: bots})
	hc := &http.Client{Timeout: 10 * time.Second}
	call := func(token string, body map[string]any) (int, map[string]any, error) {
		b, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, f.ts.URL+APIPath, bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			return 0, nil, err
		}
		return resp.StatusCode, out, nil
	}
	for i := 0; i < 2*pairs; i++ {
		openStream(t, f, fmt.Sprintf("tok%02d", i))
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { // the page and a ticking clock, meanwhile
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if resp, err := hc.Get(f.ts.URL + "/arena/live"); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			f.clock.Advance(10 * time.Millisecond)
			f.srv.Tick()
			time.Sleep(5 * time.Millisecond) // pacing of this background reader, not synchronisation
		}
	}()
	modes := othello.AllModes()
	errs := make(chan error, 4*pairs)
	var wg sync.WaitGroup
	for p := 0; p < pairs; p++ {
		ta, tb := fmt.Sprintf("tok%02d", 2*p), fmt.Sprintf("tok%02d", 2*p+1)
		mode := modes[p%len(modes)].String()
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, ans, err := call(ta, map[string]any{"action": "agent_challenge", "target_name": fmt.Sprintf("bot%02d", 2*p+1), "game_mode": mode})
			if err != nil || status != 200 {
				errs <- fmt.Errorf("challenge: %d %v %v", status, ans, err)
				return
			}
			// Each also plays the house (a built-in) in std at the same time.
			_, _, _ = call(tb, map[string]any{"action": "agent_challenge", "target_name": "house"})
			id := ans["match_id"].(float64)
			var inner sync.WaitGroup
			for _, tok := range []string{ta, tb} {
				inner.Add(1)
				go func() {
					defer inner.Done()
					for i := 0; i < 2000; i++ {
						_, poll, err := call(tok, map[string]any{"action": "agent_poll"})
						if err != nil {
							errs <- err
							return
						}
						me := poll["bot"].(map[string]any)["id"].(float64)
						busy := false
						for _, mm := range poll["matches"].([]any) {
							m := mm.(map[string]any)
							switch m["status"] {
							case "pending":
								busy = true
								if m["bot_b"] == me {
									_, _, _ = call(tok, map[string]any{"action": "agent_accept", "match_id": m["id"]})
								}
							case "running":
								busy = true
								part := 0.0
								if m["bot_b"] == me {
									part = 1
								}
								for li, ll := range m["state"].(map[string]any)["legs"].([]any) {
									l := ll.(map[string]any)
									color := 2.0
									if l["black_participant"] == part {
										color = 1
									}
									if l["status"] != "active" || l["turn"] != color {
										continue
									}
									var mv any = -1
									if lm := l["legal_moves"].([]any); len(lm) > 0 {
										mv = lm[0]
									}
									_, _, _ = call(tok, map[string]any{"action": "agent_move", "match_id": m["id"], "leg": li, "revision": l["revision"], "move": mv})
								}
							}
						}
						if !busy {
							return
						}
					}
					errs <- fmt.Errorf("match %v did not end", id)
				}()
			}
			inner.Wait()
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	snap := f.srv.Snapshot()
	require.Empty(t, snap.Live)
	ended := 0
	for _, m := range snap.Recent {
		if m.Status == "finished" || m.Status == "aborted" {
			ended++
		}
	}
	assert.GreaterOrEqual(t, ended, pairs)
}
