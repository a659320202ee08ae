package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/flipsight"
)

// stubBackend is a backend that has nothing to do: the pages' own
// behaviour (routes, middleware, assets) is tested without the appliance.
type stubBackend struct{}

func (stubBackend) RefreshFacts()                                      {}
func (stubBackend) PairingCode() string                                { return "" }
func (stubBackend) HardenPairingCode()                                 {}
func (stubBackend) UseToken(context.Context, flipsight.Token) TokenUse { return TokenUse{} }
func (stubBackend) RemoveToken() error                                 { return nil }
func (stubBackend) Settings() settings.Settings                        { return settings.Default() }
func (stubBackend) ApplySettings(settings.Settings) error              { return nil }

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
