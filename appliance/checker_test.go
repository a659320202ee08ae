package appliance

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
)

// The token check is a real agent_poll, here against the local arena.
func TestFlipSightCheckerAgainstArena(t *testing.T) {
	srv, err := arena.New(arena.Config{Bots: []arena.BotConfig{{Name: "PiBot", Token: tokA}}})
	require.NoError(t, err)
	defer srv.Close()
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	c := FlipSightChecker{APIURL: ts.URL + arena.APIPath}

	info, err := c.CheckToken(context.Background(), mustToken(t, tokA))
	require.NoError(t, err)
	assert.Equal(t, "PiBot", info.Name)
	assert.NotZero(t, info.ID)

	_, err = c.CheckToken(context.Background(), mustToken(t, tokB))
	require.ErrorIs(t, err, ErrTokenRejected)
	assert.NotContains(t, err.Error(), tokB)
}

func TestFlipSightCheckerNetworkAndServerErrors(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"ok":false,"error":"bot match storage unavailable"}`))
	}))
	c := FlipSightChecker{APIURL: ts.URL + arena.APIPath}
	_, err := c.CheckToken(context.Background(), mustToken(t, tokA))
	require.Error(t, err)
	assert.NotErrorIs(t, err, ErrTokenRejected)
	assert.NotErrorIs(t, err, ErrNetwork, "the server answered")
	ts.Close()

	_, err = c.CheckToken(context.Background(), mustToken(t, tokA))
	require.ErrorIs(t, err, ErrNetwork, "nothing listens any more")
	assert.NotContains(t, err.Error(), tokA)

	_, err = FlipSightChecker{APIURL: "http://example.com/api"}.CheckToken(context.Background(), mustToken(t, tokA))
	require.Error(t, err, "plain http is refused off loopback, before the token is sent")
	assert.NotErrorIs(t, err, ErrNetwork)
}
