package arenatest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Endpoint serves a handler over HTTP on a TCP address that can go away
// (Stop: the listener and every connection closed, as when a server
// process dies) and come back at the same address (Start). It is safe for
// concurrent use.
type Endpoint struct {
	h http.Handler

	mu   sync.Mutex
	addr string
	srv  *http.Server
}

// Listen serves h on addr ("127.0.0.1:0": a free loopback port) until Stop.
func Listen(ctx context.Context, addr string, h http.Handler) (*Endpoint, error) {
	e := &Endpoint{h: h, addr: addr}
	if err := e.Start(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

// Addr returns the address served (host:port).
func (e *Endpoint) Addr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.addr
}

// URL returns the endpoint's base URL, http://host:port.
func (e *Endpoint) URL() string { return "http://" + e.Addr() }

// errServing is Start's error while the endpoint serves.
var errServing = errors.New("arenatest: endpoint already serving")

// Start serves again at the endpoint's address after Stop. While the
// address is still taken (connections of the old server in their last
// state) it tries again every 100 ms until ctx ends.
func (e *Endpoint) Start(ctx context.Context) error {
	e.mu.Lock()
	serving, addr := e.srv != nil, e.addr
	e.mu.Unlock()
	if serving {
		return errServing
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	for err != nil {
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("arenatest: listen %s: %w", addr, err)
		case <-t.C:
		}
		ln, err = lc.Listen(ctx, "tcp", addr)
	}
	srv := &http.Server{Handler: e.h, ReadHeaderTimeout: 10 * time.Second}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.srv != nil {
		_ = ln.Close()
		return errServing
	}
	e.addr, e.srv = ln.Addr().String(), srv
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// Stop closes the listener and every connection at once (handlers still
// running see their requests' contexts end). Stopping a stopped endpoint
// does nothing.
func (e *Endpoint) Stop() {
	e.mu.Lock()
	srv := e.srv
	e.srv = nil
	e.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}
