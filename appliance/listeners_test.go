package appliance

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pages follow the private addresses as they come and go (DHCP late,
// Wi-Fi later), and an address that cannot be bound is retried, logged once.
func TestPageServersFollowAddresses(t *testing.T) {
	var mu sync.Mutex
	hosts := []string{"127.0.0.1"}
	var hostsErr error
	logs := &syncBuffer{}
	p := &pageServers{
		handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }),
		port:    0,
		hosts: func() ([]string, error) {
			mu.Lock()
			defer mu.Unlock()
			return append([]string(nil), hosts...), hostsErr
		},
		log: slog.New(slog.NewTextHandler(logs, nil)),
	}
	set := func(h []string, err error) {
		mu.Lock()
		hosts, hostsErr = h, err
		mu.Unlock()
		p.refresh()
	}
	get := func(u string) error {
		c := http.Client{Timeout: 5 * time.Second}
		resp, err := c.Get(u)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	defer p.shutdown(time.Second)

	p.refresh()
	urls := p.urls()
	require.Len(t, urls, 1)
	first := urls[0]
	require.NoError(t, get(first))

	set([]string{"127.0.0.1", "127.0.0.2"}, nil)
	require.Len(t, p.urls(), 2)
	for _, u := range p.urls() {
		require.NoError(t, get(u))
	}

	set([]string{"127.0.0.2"}, nil)
	require.Len(t, p.urls(), 1)
	assert.Error(t, get(first), "a vanished address is no longer served")

	set([]string{"127.0.0.2", "192.0.2.99"}, nil) // not ours: cannot bind
	set([]string{"127.0.0.2", "192.0.2.99"}, nil)
	assert.Len(t, p.urls(), 1)
	assert.Equal(t, 1, strings.Count(logs.String(), "pages: listen on 192.0.2.99"), "the same failure is logged once")

	set(nil, errors.New("netlink down"))
	assert.Len(t, p.urls(), 1, "a failed listing keeps what is served")
}
