package arenatest_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena/arenatest"
)

func TestEndpointStopsAndComesBackAtItsAddress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	held := make(chan struct{})
	e, err := arenatest.Listen(ctx, "127.0.0.1:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			close(held)
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, "up")
	}))
	require.NoError(t, err)
	defer e.Stop()
	addr := e.Addr()
	assert.NotContains(t, addr, ":0")
	assert.Equal(t, "http://"+addr, e.URL())
	get := func(path string) (string, error) {
		resp, err := http.Get(e.URL() + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	body, err := get("/")
	require.NoError(t, err)
	assert.Equal(t, "up", body)
	require.ErrorContains(t, e.Start(ctx), "already serving")

	holding := make(chan error, 1)
	go func() { _, err := get("/hold"); holding <- err }()
	<-held
	e.Stop()
	select {
	case err := <-holding:
		require.Error(t, err, "connections in use are closed too")
	case <-time.After(5 * time.Second):
		t.Fatal("the held request did not end")
	}
	_, err = get("/")
	require.Error(t, err, "nothing listens")
	e.Stop() // again: nothing

	require.NoError(t, e.Start(ctx))
	assert.Equal(t, addr, e.Addr(), "the same address")
	body, err = get("/")
	require.NoError(t, err)
	assert.Equal(t, "up", body)
}

func TestEndpointStartGivesUpWithItsContext(t *testing.T) {
	ctx := context.Background()
	taken, err := arenatest.Listen(ctx, "127.0.0.1:0", http.NotFoundHandler())
	require.NoError(t, err)
	defer taken.Stop()
	short, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
	defer cancel()
	_, err = arenatest.Listen(short, taken.Addr(), http.NotFoundHandler())
	require.ErrorContains(t, err, "listen "+taken.Addr())
}
