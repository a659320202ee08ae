package arena

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/clock/clocktest"
)

var t0 = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

type fixture struct {
	srv   *Server
	clock *clocktest.Clock
	ts    *httptest.Server
}

// newFixture starts a server on loopback with a manual clock and bots
// alpha (token ta, all modes) and beta (token tb, all modes), plus cfg's.
func newFixture(t testing.TB, cfg Config) *fixture {
	t.Helper()
	clk := clocktest.New(t0)
	cfg.Clock = clk
	cfg.Seed = 42
	cfg.Bots = append([]BotConfig{
		{Name: "alpha", Token: "ta", Modes: othello.AllModes()},
		{Name: "beta", Token: "tb", Modes: othello.AllModes()},
	}, cfg.Bots...)
	srv, err := New(cfg)
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		ts.Close()
		srv.Close()
	})
	return &fixture{srv: srv, clock: clk, ts: ts}
}

func (f *fixture) client(t testing.TB, token string) *specClient {
	return &specClient{t: t, base: f.ts.URL, token: token, hc: &http.Client{Timeout: 10 * time.Second}}
}

func decodeJSON(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
