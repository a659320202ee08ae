package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/flipsight"
)

// stubBackend is a backend that has nothing to do: the pages' own
// behaviour (routes, middleware, assets) is tested without the appliance.
type stubBackend struct{}

func (stubBackend) RefreshFacts()       {}
func (stubBackend) PairingCode() string { return "" }
func (stubBackend) HardenPairingCode()  {}
func (stubBackend) SetupOpen() error    { return ErrNotReady }
func (stubBackend) SetUpToken(context.Context, flipsight.Token) (TokenUse, error) {
	return TokenUse{}, ErrNotReady
}
func (stubBackend) UseToken(context.Context, flipsight.Token) (TokenUse, error) {
	return TokenUse{}, ErrNotReady
}
func (stubBackend) RemoveToken() error                    { return nil }
func (stubBackend) Settings() settings.Settings           { return settings.Default() }
func (stubBackend) ApplySettings(settings.Settings) error { return nil }
func (stubBackend) RatingHistory() ratings.History        { return ratings.History{} }
func (stubBackend) Mirror() state.Mirror                  { return state.Mirror{} }
func (stubBackend) DisplayPNG() ([]byte, error)           { return nil, errors.New("none") }

// testHandler is a Handler on a fresh hub with the stub backend.
type testHandler struct {
	t *testing.T
	*Handler
}

func newTestHandler(t *testing.T) testHandler {
	t.Helper()
	h, err := New(Config{Hub: state.NewHub(nil), Backend: stubBackend{}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return testHandler{t: t, Handler: h}
}

// get answers GET path from the device's own address.
func (h testHandler) get(path string) (int, string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestRefusalsAreLoggedInAggregate: 150 requests for a foreign host name
// write one line at once and one with the count at the end of the
// interval, not 150 lines (which pushed the pairing code out of gokrazy's
// 100-line log).
func TestRefusalsAreLoggedInAggregate(t *testing.T) {
	var logs syncLog
	h, err := New(Config{Hub: state.NewHub(nil), Backend: stubBackend{}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	const every = 200 * time.Millisecond
	h.refused = newRefusalLog(h.log, every)
	for range 150 {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = "attacker.example"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusMisdirectedRequest, rec.Code)
	}
	assert.Equal(t, 1, logs.lines(), "the first refusal, at once: %s", logs.String())
	require.Eventually(t, func() bool { return logs.lines() == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Contains(t, logs.String(), "more=149")
	time.Sleep(2 * every)
	assert.Equal(t, 2, logs.lines(), "a quiet interval writes nothing")

	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Host = "attacker.example"
	h.ServeHTTP(httptest.NewRecorder(), req)
	assert.Equal(t, 3, logs.lines(), "after a quiet interval the next refusal is logged at once")
}

// syncLog is a log sink safe for concurrent use.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *syncLog) lines() int { return strings.Count(l.String(), "\n") }
