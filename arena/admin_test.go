package arena

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
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

// TestAdminRefusesWebPages: a page of another site in the tester's browser
// cannot use the loopback test hooks: not by DNS rebinding (a Host that is
// not this server's), not by a cross-origin POST (Sec-Fetch-Site, or
// Origin without it), and not by a form or simple request (any body type
// but application/json). The same-origin JSON POST is answered.
func TestAdminRefusesWebPages(t *testing.T) {
	const body = `{"bot":"alpha","mode":"std","clock_ms":30000}`
	type hdr = map[string]string
	cases := []struct {
		what   string
		host   string
		header hdr
		status int
	}{
		{"DNS rebinding", "evil.example:8080", hdr{"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"}, http.StatusMisdirectedRequest},
		{"DNS rebinding, no port", "evil.example", hdr{"Content-Type": "application/json"}, http.StatusMisdirectedRequest},
		{"a name under the own one", "arena.test.evil.example", hdr{"Content-Type": "application/json"}, http.StatusMisdirectedRequest},
		{"a cross-site text/plain form post", "127.0.0.1:8080", hdr{"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"a cross-site JSON fetch", "127.0.0.1:8080", hdr{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"a same-site page on another port", "127.0.0.1:8080", hdr{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:3000"}, http.StatusForbidden},
		{"an Origin of another site, no Sec-Fetch-Site", "127.0.0.1:8080", hdr{"Content-Type": "text/plain", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"an Origin of another port, no Sec-Fetch-Site", "localhost:8080", hdr{"Content-Type": "application/json", "Origin": "http://localhost:3000"}, http.StatusForbidden},
		{"a text/plain post with no Origin (an old browser)", "127.0.0.1:8080", hdr{"Content-Type": "text/plain;charset=UTF-8"}, http.StatusUnsupportedMediaType},
		{"a form post", "127.0.0.1:8080", hdr{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusUnsupportedMediaType},
		{"a multipart form post", "127.0.0.1:8080", hdr{"Content-Type": "multipart/form-data; boundary=x"}, http.StatusUnsupportedMediaType},
		{"no body type", "127.0.0.1:8080", hdr{}, http.StatusUnsupportedMediaType},

		{"same origin", "127.0.0.1:8080", hdr{"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", "Origin": "http://127.0.0.1:8080"}, http.StatusOK},
		{"the Origin of the Host, no Sec-Fetch-Site", "localhost:8080", hdr{"Content-Type": "application/json; charset=utf-8", "Origin": "http://localhost:8080"}, http.StatusOK},
		{"a program (no Origin)", "[::1]:8080", hdr{"Content-Type": "application/json"}, http.StatusOK},
		{"a configured name", "Arena.Test.:8080", hdr{"Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"}, http.StatusOK},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			h := newFixture(t, Config{AdminHosts: []string{"arena.test"}}).srv.Handler()
			r := httptest.NewRequest(http.MethodPost, "/arena/admin/human", strings.NewReader(body))
			r.Host = c.host
			r.RemoteAddr = "127.0.0.1:5555"
			for k, v := range c.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, c.status, w.Code, w.Body.String())
			if c.status != http.StatusOK {
				assert.Contains(t, w.Body.String(), `"ok":false`)
			}
		})
	}
}

func TestHostAllowed(t *testing.T) {
	names := ownNames([]string{"Arena.Example."})
	host, err := os.Hostname()
	require.NoError(t, err)
	for _, h := range []string{"127.0.0.1", "[::1]", "192.0.2.7", "localhost", "LOCALHOST.", "arena.example", strings.ToUpper(host), host + ".local", host + ".home.arpa"} {
		assert.True(t, hostAllowed(h, names), h)
	}
	for _, h := range []string{"", ".", "evil.example", "localhost.evil.example", "127.0.0.1.evil.example", host + ".evil.example", "arena.example.evil"} {
		assert.False(t, hostAllowed(h, names), h)
	}
}
