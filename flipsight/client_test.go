package flipsight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const secret = "fsbm_TESTSECRET_0123456789"

func testToken(t *testing.T) Token {
	t.Helper()
	tok, err := NewToken(secret + "\n")
	require.NoError(t, err)
	return tok
}

func newTestClient(t *testing.T, srv *httptest.Server, mod func(*Config)) *Client {
	t.Helper()
	cfg := Config{APIURL: srv.URL + "/flipsight/bot_match_api.php", Token: testToken(t)}
	if mod != nil {
		mod(&cfg)
	}
	c, err := NewClient(cfg)
	require.NoError(t, err)
	return c
}

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://othelloclub.com/flipsight/bot_match_api.php", true},
		{"https://example.org:8443/x", true},
		{"http://127.0.0.1:8080/api", true},
		{"http://127.9.8.7/api", true},
		{"http://localhost:9/api", true},
		{"http://LOCALHOST./api", true},
		{"http://[::1]:8080/api", true},
		{"http://othelloclub.com/flipsight/bot_match_api.php", false},
		{"http://192.168.1.2/api", false},
		{"http://128.0.0.1/api", false},
		{"http://localhost.evil.com/api", false},
		{"ftp://127.0.0.1/api", false},
		{"https:///nohost", false},
		{"https://user:pw@othelloclub.com/api", false},
		{"othelloclub.com/api", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := CheckURL(tt.url)
			if tt.ok {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, ErrRefusedURL)
			}
		})
	}
}

func TestStreamURLFor(t *testing.T) {
	_, s, err := StreamURLFor(DefaultAPIURL, "")
	require.NoError(t, err)
	assert.Equal(t, DefaultStreamURL, s.String())

	_, s, err = StreamURLFor("http://127.0.0.1:8080/flipsight/bot_match_api.php", "")
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:8080"+StreamPath, s.String())

	_, _, err = StreamURLFor(DefaultAPIURL, "https://evil.example/bot-stream")
	assert.ErrorIs(t, err, ErrRefusedURL)
	_, _, err = StreamURLFor("http://127.0.0.1:1/api", "http://localhost:1/stream")
	assert.ErrorIs(t, err, ErrRefusedURL, "another name of the same machine is still another host")
	_, _, err = StreamURLFor(DefaultAPIURL, "http://othelloclub.com/flipsight_api/bot-stream")
	assert.ErrorIs(t, err, ErrRefusedURL)
}

func TestNewClientRefusesBeforeSendingToken(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, err := NewClient(Config{APIURL: "https://othelloclub.com/flipsight/bot_match_api.php",
		StreamURL: srv.URL + "/bot-stream", Token: testToken(t)})
	require.ErrorIs(t, err, ErrRefusedURL)
	assert.Zero(t, hits.Load())
	assert.NotContains(t, err.Error(), secret)

	_, err = NewClient(Config{APIURL: srv.URL})
	assert.ErrorIs(t, err, ErrNoToken)
}

func TestToken(t *testing.T) {
	_, err := NewToken("   ")
	assert.ErrorIs(t, err, ErrNoToken)
	_, err = NewToken("fsbm_abc\r\nX-Evil: 1")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "fsbm_abc")

	tok := testToken(t)
	type holder struct {
		Token Token
		Name  string
	}
	h := holder{Token: tok, Name: "x"}
	outs := []string{
		fmt.Sprint(tok), fmt.Sprintf("%s %v %+v %#v %q", tok, tok, h, h, tok),
	}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	outs = append(outs, string(b))
	var logBuf bytes.Buffer
	slog.New(slog.NewJSONHandler(&logBuf, nil)).Info("x", "token", tok, "h", h)
	slog.New(slog.NewTextHandler(&logBuf, nil)).Info("x", "token", tok, "h", h)
	outs = append(outs, logBuf.String())
	for _, o := range outs {
		assert.NotContains(t, o, "TESTSECRET")
	}
	assert.Contains(t, logBuf.String(), redacted)
	assert.Equal(t, secret, tok.Reveal(), "only Reveal gives the secret (trimmed) to the one that must keep it")
}

func TestCallSendsBearerAndDecodes(t *testing.T) {
	var got struct {
		auth, ctype, method string
		body                map[string]any
	}
	poll, err := os.ReadFile("testdata/poll_response.json")
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.auth, got.ctype, got.method = r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Method
		require.NoError(t, json.NewDecoder(r.Body).Decode(&got.body))
		w.Write(poll)
	}))
	defer srv.Close()
	c := newTestClient(t, srv, nil)
	r, err := c.Poll(context.Background(), &Environment{CPU: "cpu", OS: "linux", Engine: "flipbot"})
	require.NoError(t, err)
	assert.Equal(t, "Bearer "+secret, got.auth)
	assert.Equal(t, "application/json", got.ctype)
	assert.Equal(t, http.MethodPost, got.method)
	assert.Equal(t, ActionPoll, got.body["action"])
	assert.Equal(t, map[string]any{"cpu": "cpu", "os": "linux", "engine": "flipbot", "practice": false}, got.body["environment"])
	assert.Len(t, r.Matches, 1)
}

func TestCallErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		header map[string]string
		check  func(t *testing.T, err error)
	}{
		{"409 stale_revision", 409, `{"ok":false,"error":"stale_revision","server_now_ms":5}`, nil, func(t *testing.T, err error) {
			assert.True(t, IsStale(err))
			assert.True(t, IsConflict(err))
			assert.Equal(t, int64(5), AsAPIError(err).ServerNowMS)
		}},
		{"409 illegal_move", 409, `{"ok":false,"error":"illegal_move"}`, nil, func(t *testing.T, err error) {
			assert.True(t, IsIllegal(err))
			assert.False(t, IsRetryable(err))
		}},
		{"401", 401, `{"ok":false,"error":"invalid bot credential"}`, nil, func(t *testing.T, err error) {
			assert.True(t, IsAuth(err))
		}},
		{"503 with Retry-After", 503, `{"ok":false,"error":"bot match storage unavailable"}`, map[string]string{"Retry-After": "3"}, func(t *testing.T, err error) {
			assert.True(t, IsRetryable(err))
			assert.Equal(t, 3*time.Second, AsAPIError(err).RetryAfter)
		}},
		{"502 html", 502, `<html>bad gateway</html>`, nil, func(t *testing.T, err error) {
			assert.True(t, IsRetryable(err))
			assert.Equal(t, 502, AsAPIError(err).Status)
		}},
		{"200 ok false", 200, `{"ok":false,"error":"bot busy"}`, nil, func(t *testing.T, err error) {
			assert.Equal(t, CodeBotBusy, AsAPIError(err).Code)
		}},
		{"200 not json", 200, `hello`, nil, func(t *testing.T, err error) {
			assert.Nil(t, AsAPIError(err))
			assert.Contains(t, err.Error(), "decode answer")
		}},
		{"200 wrong shape", 200, `{"ok":true,"match":[1,2]}`, nil, func(t *testing.T, err error) {
			assert.Contains(t, err.Error(), "decode answer")
		}},
		{"302 redirect is not followed", 302, ``, map[string]string{"Location": "http://127.0.0.1:1/elsewhere"}, func(t *testing.T, err error) {
			assert.Equal(t, 302, AsAPIError(err).Status)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			c := newTestClient(t, srv, nil)
			_, err := c.Move(context.Background(), MoveRequest{MatchID: 1, Leg: 0, Revision: 3, Move: SquareMove(19)})
			require.Error(t, err)
			assert.NotContains(t, err.Error(), "TESTSECRET")
			assert.Contains(t, err.Error(), "match 1")
			tt.check(t, err)
		})
	}
}

func TestResponseSizeLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"ok":true,"bots":[],"me":"`+strings.Repeat("x", 5000)+`"}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv, func(c *Config) { c.MaxResponseBytes = 1000 })
	_, err := c.Poll(context.Background(), nil)
	require.ErrorIs(t, err, ErrResponseTooLarge)
	assert.False(t, IsRetryable(err))
}

func TestRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	c := newTestClient(t, srv, func(c *Config) { c.RequestTimeout = 50 * time.Millisecond })
	_, err := c.Accept(context.Background(), 7)
	require.Error(t, err)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), err.Error())
	assert.True(t, IsRetryable(err))
}

func TestRedirectDoesNotCarryToken(t *testing.T) {
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL, http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	c := newTestClient(t, srv, nil)
	_, err := c.Poll(context.Background(), nil)
	require.Error(t, err)
	s, err := c.OpenStream(context.Background())
	if s != nil {
		s.Close()
	}
	require.Error(t, err)
	assert.Zero(t, leaked.Load())
}

func TestHTTPSWithCustomClient(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"ok":true,"match_id":42,"server_now_ms":1}`)
	}))
	defer srv.Close()
	c := newTestClient(t, srv, func(c *Config) { c.HTTPClient = srv.Client() })
	r, err := c.Challenge(context.Background(), ChallengeRequest{TargetName: "Opponent", GameMode: ModeGrand})
	require.NoError(t, err)
	assert.Equal(t, int64(42), r.MatchID)

	// Without trusting the test certificate the call fails, token unsent.
	c2 := newTestClient(t, srv, nil)
	_, err = c2.Poll(context.Background(), nil)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "TESTSECRET")
}

// TestLooksMisdirected: answers no bot API gives (404, a site's page) say
// that the API URL is probably wrong; the service's own errors and a
// proxy's passing 5xx or 429 page do not.
func TestLooksMisdirected(t *testing.T) {
	t.Parallel()
	page := "<!DOCTYPE html>\n<html>\n  <title>Othello\x00Club</title>"
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string // "" when not misdirected
	}{
		{"site page with 200", 200, page, `HTTP 200 with a page that is not JSON ("<!DOCTYPE html> <html> <title>Othello Club</title>")`},
		{"404 page", 404, "404 page not found\n", `HTTP 404 ("404 page not found")`},
		{"404 empty", 404, "", "HTTP 404"},
		{"404 JSON", 404, `{"ok":false,"error":"nope"}`, "HTTP 404"},
		{"400 page", 400, page, `HTTP 400 with a page that is not JSON ("<!DOCTYPE html> <html> <title>Othello Club</title>")`},
		{"400 of the service", 400, `{"ok":false,"error":"unknown action"}`, ""},
		{"409 of the service", 409, `{"ok":false,"error":"stale_revision"}`, ""},
		{"502 page of a proxy", 502, page, ""},
		{"429 page", 429, page, ""},
		{"200 wrong shape", 200, `{"ok":true,"matches":5}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := DecodeAnswer(ActionPoll, tc.status, nil, []byte(tc.body), &PollResponse{})
			require.Error(t, err)
			what, ok := LooksMisdirected(err)
			assert.Equal(t, tc.want != "", ok)
			assert.Equal(t, tc.want, what)
		})
	}
	_, ok := LooksMisdirected(errors.New("dial tcp: connection refused"))
	assert.False(t, ok)
}

// TestPageStartIsBounded: the page quoted in a log line is cut and clean.
func TestPageStartIsBounded(t *testing.T) {
	t.Parallel()
	s := pageStart([]byte(strings.Repeat("<p>\r\n\x1b[31m", 1000)))
	assert.LessOrEqual(t, len([]rune(s)), 61)
	assert.NotContains(t, s, "\x1b")
	assert.NotContains(t, s, "\n")
}
