package appliance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/flipsight"
)

// scriptedServer is a FlipSight that answers every agent_poll with the
// body the test sets, and everything else with 400.
type scriptedServer struct {
	mu    sync.Mutex
	body  []byte
	polls int
	poked chan struct{}
}

func (s *scriptedServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	var req struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(b, &req)
	if req.Action != flipsight.ActionPoll {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"ok":false,"error":"unknown action"}`))
		return
	}
	s.mu.Lock()
	body := s.body
	s.polls++
	s.mu.Unlock()
	select {
	case s.poked <- struct{}{}:
	default:
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (s *scriptedServer) set(body []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.body = body
	return s.polls
}

func (s *scriptedServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls
}

// pathPlayer runs the real bot (polling only, fast timing) against url and
// reports through the appliance's conversion, as botPlayer does.
type pathPlayer struct {
	url string
}

func (p pathPlayer) Play(ctx context.Context, token flipsight.Token, _ settings.Settings, report func(bot.Status)) error {
	c, err := flipsight.NewClient(flipsight.Config{APIURL: p.url, Token: token, RequestTimeout: 2 * time.Second})
	if err != nil {
		return err
	}
	eng := arena.NewPlayer(0)
	b, err := bot.New(bot.Options{
		Client: c, NoStream: true, MaxThink: 50 * time.Millisecond, MoveDrain: 100 * time.Millisecond,
		Engine:   bot.Engines{Name: "random", Provider: engines.Shared(eng)},
		Timing:   bot.Timing{PollMatch: 5 * time.Millisecond, PollIdle: 5 * time.Millisecond, MinPollGap: 2 * time.Millisecond},
		Logger:   slog.New(slog.DiscardHandler),
		OnStatus: report,
	})
	if err != nil {
		return err
	}
	return b.Run(ctx)
}

// pathSeeds returns poll answers built from the sample: a sane one, and
// the attacks of issue 14 (a board of 3000² and of 100000² cells, a 2 MiB
// name for the opponent and for the bot itself).
func pathSeeds(t testing.TB) [][]byte {
	raw, err := os.ReadFile("../flipsight/testdata/poll_response.json")
	require.NoError(t, err)
	variant := func(change func(v map[string]any)) []byte {
		var v map[string]any
		require.NoError(t, json.Unmarshal(raw, &v))
		change(v)
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	state := func(v map[string]any) map[string]any {
		return v["matches"].([]any)[0].(map[string]any)["state"].(map[string]any)
	}
	huge := strings.Repeat("N", 2<<20)
	return [][]byte{
		raw,
		variant(func(v map[string]any) { state(v)["board_size"] = 3000 }),
		variant(func(v map[string]any) { state(v)["board_size"] = 100000 }),
		variant(func(v map[string]any) { v["bots"].([]any)[0].(map[string]any)["name"] = huge }),
		variant(func(v map[string]any) { v["bot"].(map[string]any)["name"] = huge }),
		[]byte(`{"ok":true,"bots":[],"matches":[],"bot":{"id":2,"name":"MyBot","supported_games":["std"]},"server_now_ms":1}`),
	}
}

// pathEnv is an appliance whose bot plays against a scriptedServer.
type pathEnv struct {
	*testEnv
	fs *scriptedServer
}

func startPathEnv(t *testing.T) *pathEnv {
	fs := &scriptedServer{poked: make(chan struct{}, 1), body: []byte(`{"ok":true,"bots":[],"matches":[],"server_now_ms":1}`)}
	srv := httptest.NewServer(fs)
	t.Cleanup(srv.Close)
	e := startEnv(t, func(c *Config, a *app) {
		a.token.env = mustToken(t, tokA)
		a.runner.player = pathPlayer{url: srv.URL + arena.APIPath}
	})
	return &pathEnv{testEnv: e, fs: fs}
}

// feed makes the server answer body and waits until the bot has taken in
// at least one poll answered with it: a poll that began after the one
// that got it has.
func (e *pathEnv) feed(t *testing.T, body []byte) {
	start := e.fs.set(body)
	deadline := time.After(10 * time.Second)
	for e.fs.count() < start+2 {
		select {
		case <-e.fs.poked:
		case <-deadline:
			t.Fatalf("the bot did not poll twice (%d polls)", e.fs.count()-start)
		}
	}
}

// maxPage bounds every page and log line growth: the sample's pages are
// a few KiB; a page that grows with a server's number or string fails.
const maxPage = 256 << 10

func (e *pathEnv) checkPages(t *testing.T) {
	te := *e.testEnv
	te.t = t // fail the subtest, not the test that made the appliance
	logBefore := len(e.logs.String())
	for _, p := range []string{"/", "/live", "/api/status"} {
		code, body := te.get(p, false)
		require.Equal(t, http.StatusOK, code, "GET %s", p)
		require.Less(t, len(body), maxPage, "GET %s is %d bytes", p, len(body))
	}
	require.Less(t, len(e.logs.String())-logBefore, maxPage, "the logs grew by %d bytes", len(e.logs.String())-logBefore)
}

// The whole path with the attacks: each answer is taken in by the
// bot and the pages stay small (no page allocates from an unchecked
// number, no 2 MiB name is copied into them).
func TestServerValuesToPages(t *testing.T) {
	e := startPathEnv(t)
	for i, body := range pathSeeds(t) {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			e.feed(t, body)
			e.checkPages(t)
			if i == 0 {
				// The sane answer's match reaches the page.
				_, page := e.get("/", false)
				require.Contains(t, page, `class="board s8"`)
			}
		})
	}
}

// FuzzServerToPage feeds fuzzed poll answers through the client, the bot,
// the appliance's status and its pages.
func FuzzServerToPage(f *testing.F) {
	for _, s := range pathSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := startPathEnv(t)
		e.feed(t, body)
		e.checkPages(t)
	})
}
