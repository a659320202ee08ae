package flipsight

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// streamServer serves the lines, flushing each, then holds the connection
// open until the request ends (hold) or closes it.
func streamServer(t *testing.T, lines []string, hold bool) *httptest.Server {
	t.Helper()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != StreamPath {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+secret {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"ok":false,"error":"invalid bot credential"}`)
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		fl := w.(http.Flusher)
		w.WriteHeader(http.StatusOK)
		fl.Flush()
		for _, l := range lines {
			io.WriteString(w, l)
			fl.Flush()
		}
		if hold {
			<-r.Context().Done()
		}
	}))
}

func TestStreamEvents(t *testing.T) {
	srv := streamServer(t, []string{
		`{"type":"hello","bot_id":1,"server_now_ms":1}` + "\n",
		"\n",
		`not json` + "\n",
		`{"type":"match","match":{"id":-45,"kind":"human","room_id":45},"server_now_ms":2}` + "\n",
		`{"type":"ping","server_now_ms":3}` + "\n",
	}, false)
	defer srv.Close()
	c := newTestClient(t, srv, nil)
	s, err := c.OpenStream(context.Background())
	require.NoError(t, err)
	defer s.Close()

	ev, err := s.Next()
	require.NoError(t, err)
	assert.Equal(t, EventHello, ev.Type)
	_, err = s.Next()
	assert.ErrorIs(t, err, ErrBadEvent)
	ev, err = s.Next()
	require.NoError(t, err)
	assert.Equal(t, int64(-45), ev.Match.ID)
	ev, err = s.Next()
	require.NoError(t, err)
	assert.Equal(t, EventPing, ev.Type)
	_, err = s.Next()
	assert.ErrorIs(t, err, io.EOF)
}

func TestStreamSilentDeadline(t *testing.T) {
	srv := streamServer(t, []string{`{"type":"hello","bot_id":1,"server_now_ms":1}` + "\n"}, true)
	defer srv.Close()
	c := newTestClient(t, srv, func(c *Config) { c.StreamReadTimeout = 100 * time.Millisecond })
	s, err := c.OpenStream(context.Background())
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Next()
	require.NoError(t, err)
	_, err = s.Next()
	assert.ErrorIs(t, err, ErrStreamSilent)
}

func TestStreamLineTooLarge(t *testing.T) {
	srv := streamServer(t, []string{`{"type":"ping","pad":"` + strings.Repeat("x", 300<<10) + `"}` + "\n"}, true)
	defer srv.Close()
	c := newTestClient(t, srv, func(c *Config) { c.MaxEventBytes = 100 << 10 })
	s, err := c.OpenStream(context.Background())
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Next()
	assert.ErrorIs(t, err, ErrResponseTooLarge)
}

func TestStreamCloseUnblocksNext(t *testing.T) {
	srv := streamServer(t, nil, true)
	defer srv.Close()
	c := newTestClient(t, srv, nil)
	s, err := c.OpenStream(context.Background())
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { _, err := s.Next(); done <- err }()
	require.NoError(t, s.Close())
	err = <-done
	assert.True(t, errors.Is(err, io.EOF), err)
}

func TestStreamOpenErrors(t *testing.T) {
	srv := streamServer(t, nil, false)
	defer srv.Close()
	bad, err := NewToken("fsbm_wrong")
	require.NoError(t, err)
	c := newTestClient(t, srv, func(c *Config) { c.Token = bad })
	_, err = c.OpenStream(context.Background())
	assert.True(t, IsAuth(err))

	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, `{"ok":false,"error":"too many streams"}`)
	}))
	defer busy.Close()
	c = newTestClient(t, busy, nil)
	_, err = c.OpenStream(context.Background())
	assert.True(t, IsRateLimited(err))
	assert.Equal(t, CodeTooManyStreams, AsAPIError(err).Code)
}
