package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/flipsight"
)

// tokenBackend answers the token methods as scripted.
type tokenBackend struct {
	stubBackend
	open    error
	setUp   error
	removed error
}

func (b tokenBackend) PairingCode() string { return "123456" }
func (b tokenBackend) SetupOpen() error    { return b.open }
func (b tokenBackend) SetUpToken(context.Context, flipsight.Token) (TokenUse, error) {
	if b.setUp != nil {
		return TokenUse{}, b.setUp
	}
	return TokenUse{Bot: state.BotInfo{Name: "Scripted"}, Source: state.TokenStored}, nil
}
func (b tokenBackend) RemoveToken() error { return b.removed }

// postSetup sends the setup form with the right code and a well-formed
// token to h.
func postSetup(t *testing.T, h *Handler) (int, string) {
	t.Helper()
	const secret = "0123456789abcdefghijklmnop"
	form := url.Values{"csrf": {h.csrf.mac(secret)}, "code": {"123456"}, "token": {"fsbm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}
	req := httptest.NewRequest(http.MethodPost, "/setup", strings.NewReader(form.Encode()))
	req.Host = "127.0.0.1"
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: CSRFCookie, Value: secret})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestTokenPagesActOnTheBackendsErrors: the setup and token forms answer
// by the errors the backend returns, whatever the status says (here it
// says the opposite: a token in effect while the clock is not set).
func TestTokenPagesActOnTheBackendsErrors(t *testing.T) {
	tests := []struct {
		name     string
		b        tokenBackend
		want     int
		wantText string
	}{
		{"open: the token is taken", tokenBackend{}, http.StatusSeeOther, ""},
		{"not ready before the form", tokenBackend{open: ErrNotReady}, http.StatusServiceUnavailable, "Not ready yet"},
		{"set up before the form", tokenBackend{open: ErrAlreadySetUp}, http.StatusConflict, "Already set up"},
		{"set up meanwhile", tokenBackend{setUp: ErrAlreadySetUp}, http.StatusConflict, "Already set up"},
		{"not ready meanwhile", tokenBackend{setUp: fmt.Errorf("starting: %w", ErrNotReady)}, http.StatusUnprocessableEntity, "still waiting for the network and the clock"},
		{"rejected", tokenBackend{setUp: fmt.Errorf("%w: 401", ErrTokenRejected)}, http.StatusUnprocessableEntity, "FlipSight rejected this token"},
		{"not checked", tokenBackend{setUp: errors.New("dial tcp: no route to host")}, http.StatusUnprocessableEntity, "Could not check the token with FlipSight: dial tcp: no route to host."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hub := state.NewHub(nil)
			hub.Update(func(st *state.Status) { st.Token, st.Phase = state.TokenStored, state.PhaseWaitingClock })
			h, err := New(Config{Hub: hub, Backend: tc.b, Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			code, body := postSetup(t, h)
			assert.Equal(t, tc.want, code, body)
			assert.Contains(t, body, tc.wantText)
		})
	}
}

// TestRemoveTokenActsOnTheBackendsErrors: removing the token is refused
// as "not ready" when the backend says so (the status says it runs), and
// done when it does not (the status says it stops).
func TestRemoveTokenActsOnTheBackendsErrors(t *testing.T) {
	for _, tc := range []struct {
		phase state.Phase
		err   error
		want  string
	}{
		{state.PhaseRunning, ErrNotReady, "the device is still starting or is stopping"},
		{state.PhaseStopping, nil, ""},
		{state.PhaseRunning, errors.New("remove: read-only file system"), "could not remove the saved token (storage error"},
	} {
		hub := state.NewHub(nil)
		hub.Update(func(st *state.Status) { st.Phase = tc.phase })
		h, err := New(Config{Hub: hub, Backend: tokenBackend{removed: tc.err}, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		err = h.removeToken()
		if tc.want == "" {
			assert.NoError(t, err)
			continue
		}
		assert.ErrorContains(t, err, tc.want)
	}
}
