package appliance

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/mdns"
)

// pageServers serves the pages on port of every host that hosts returns
// (private interface addresses on the device), and follows address changes
// (DHCP comes late, Wi-Fi later still) by asking again every refresh
// period, as gokrazy's own web UI does. Binding each private address instead
// of the wildcard keeps the pages off public addresses.
type pageServers struct {
	handler http.Handler
	port    int
	hosts   func() ([]string, error)
	log     *slog.Logger
	// onChange gets the URLs served after every change.
	onChange func(urls []string)
	// maxConns bounds the connections each listener holds open at once
	// (DefaultMaxPageConns when 0).
	maxConns int

	mu      sync.Mutex // guards servers and lastErr
	servers map[string]*boundServer
	lastErr string
}

// A page connection must send its request's header within
// pageReadHeaderTimeout and is closed after pageIdleTimeout without one:
// a held connection takes one of the listener's DefaultMaxPageConns.
const (
	pageReadHeaderTimeout = 10 * time.Second
	pageIdleTimeout       = 30 * time.Second
)

type boundServer struct {
	srv *http.Server
	url string
}

// refresh binds new hosts and closes vanished ones.
func (p *pageServers) refresh() {
	hosts, err := p.hosts()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.servers == nil {
		p.servers = map[string]*boundServer{}
	}
	if err != nil {
		p.logOnce("list page addresses", err)
		return
	}
	changed := false
	for h, s := range p.servers {
		if !slices.Contains(hosts, h) {
			s.srv.Close()
			delete(p.servers, h)
			changed = true
		}
	}
	for _, h := range hosts {
		if _, ok := p.servers[h]; ok {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort(h, strconv.Itoa(p.port)))
		if err != nil {
			// Retried at the next refresh: the address may not be ready yet.
			p.logOnce("listen on "+h, err)
			continue
		}
		maxConns := p.maxConns
		if maxConns <= 0 {
			maxConns = DefaultMaxPageConns
		}
		ll := newLimitListener(ln, maxConns)
		ln = ll
		srv := &http.Server{
			ConnState:         ll.connState,
			Handler:           p.handler,
			ReadHeaderTimeout: pageReadHeaderTimeout,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second, // the game exports move it on game by game
			IdleTimeout:       pageIdleTimeout,
			ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
		}
		p.servers[h] = &boundServer{srv: srv, url: "http://" + ln.Addr().String() + "/"}
		changed = true
		p.log.Info("pages served", "url", p.servers[h].url)
		go func() {
			if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				p.log.Warn("page server stopped", "addr", ln.Addr().String(), "err", err)
			}
		}()
	}
	if changed && p.onChange != nil {
		p.onChange(p.urlsLocked())
	}
}

// logOnce logs an error once until it changes, so that a missing address
// at boot does not fill gokrazy's 100-line log.
func (p *pageServers) logOnce(what string, err error) {
	if s := what + ": " + err.Error(); s != p.lastErr {
		p.lastErr = s
		p.log.Warn("pages: "+what, "err", err)
	}
}

func (p *pageServers) urlsLocked() []string {
	var out []string
	for _, s := range p.servers {
		out = append(out, s.url)
	}
	slices.Sort(out)
	return out
}

// urls returns the URLs served now.
func (p *pageServers) urls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.urlsLocked()
}

// run serves until ctx ends, then shuts the servers down within grace.
func (p *pageServers) run(ctx context.Context, every, grace time.Duration) {
	p.refresh()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			p.shutdown(grace)
			return
		case <-t.C:
			p.refresh()
		}
	}
}

func (p *pageServers) shutdown(grace time.Duration) {
	p.mu.Lock()
	servers := p.servers
	p.servers = nil
	p.mu.Unlock()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() {
			if err := s.srv.Shutdown(sctx); err != nil {
				s.srv.Close()
			}
		})
	}
	wg.Wait()
}

// serveMDNS answers multicast DNS for the device's host name and announces
// the pages on port over DNS-SD (package appliance/mdns), with the addresses
// hosts returns (the pages' own), on IPv4 and IPv6, until ctx ends. The
// returned wait waits for the goodbyes. A socket that cannot be opened is
// logged and left out.
func serveMDNS(ctx context.Context, port int, hosts func() ([]string, error), log *slog.Logger) (wait func()) {
	name, err := os.Hostname()
	if err != nil {
		log.Warn("mdns: no host name; flipbot.local will not answer", "err", err)
		return func() {}
	}
	networks := func(ifIndex int) []netip.Prefix {
		hs, err := hosts()
		if err != nil {
			return nil
		}
		return servedNetworks(mdns.InterfaceNetworks(ifIndex), hs)
	}
	r, err := mdns.New(mdns.Config{Hostname: name, Port: port, Networks: networks, Logger: log})
	if err != nil {
		log.Warn("mdns: not answering", "err", err)
		return func() {}
	}
	var wg sync.WaitGroup
	for _, g := range []netip.AddrPort{mdns.GroupV4(), mdns.GroupV6()} {
		s, err := mdns.Listen(g, nil)
		if err != nil {
			log.Warn("mdns: not answering", "group", g.String(), "err", err)
			continue
		}
		wg.Go(func() { _ = r.Serve(ctx, s, mdns.Timing{}) })
	}
	return wg.Wait
}

// servedNetworks returns the networks of nets whose address is one of the
// pages' hosts: flipbot.local stands only for addresses the pages answer on.
func servedNetworks(nets []netip.Prefix, hosts []string) []netip.Prefix {
	var out []netip.Prefix
	for _, n := range nets {
		for _, h := range hosts {
			if a, err := netip.ParseAddr(h); err == nil && a.WithZone("") == n.Addr().WithZone("") {
				out = append(out, n)
				break
			}
		}
	}
	return out
}
