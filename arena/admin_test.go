package arena

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdminHooks: the loopback test hooks make human matches and
// challenges; other addresses get 403.
func TestAdminHooks(t *testing.T) {
	f := newFixture(t, Config{Bots: []BotConfig{{Name: "house", Builtin: true, Level: 0}}})
	a := f.client(t, "ta")
	a.poll()
	post := func(path, body string) (int, string) {
		resp, err := http.Post(f.ts.URL+path, "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	status, body := post("/arena/admin/human", `{"bot":"alpha","mode":"anti","clock_ms":30000,"bot_black":true}`)
	require.Equal(t, 200, status, body)
	assert.Contains(t, body, `"match_id":-1`)
	m := a.match(-1)
	assert.Equal(t, "human", m.Kind)
	assert.Equal(t, "anti", m.GameMode)
	status, body = post("/arena/admin/challenge", `{"from":"house","to":"alpha","mode":"std"}`)
	require.Equal(t, 200, status, body)
	status, body = post("/arena/admin/challenge", `{"from":"house","to":"nobody"}`)
	assert.Equal(t, 409, status)
	assert.Contains(t, body, "target bot not found")
	status, _ = post("/arena/admin/human", `{"bot":"alpha","mode":"chess"}`)
	assert.Equal(t, 409, status)
	status, _ = post("/arena/admin/human", `[`)
	assert.Equal(t, 400, status)
	status, _ = post("/arena/admin/nothing", `{}`)
	assert.Equal(t, 404, status)
	status, _ = post("/arena/admin/tick", ``)
	assert.Equal(t, 200, status)

	// From a non-loopback address: refused.
	r := httptest.NewRequest(http.MethodPost, "/arena/admin/challenge", strings.NewReader(`{"from":"house","to":"alpha"}`))
	r.RemoteAddr = "192.0.2.7:5555"
	w := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(w, r)
	assert.Equal(t, http.StatusForbidden, w.Code)
}
