//go:build linux

package appliance

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fdChildEnv makes the test binary the child of
// TestHeldPageConnectionsLeaveTheBotItsDescriptors; its value is the URL
// of the parent's stand-in for FlipSight.
const fdChildEnv = "FLIPBOT_TEST_FD_CHILD"

// childFDLimit is the child's RLIMIT_NOFILE: room for the pages' limit
// and the bot's own connections, not for every connection the parent
// holds.
const childFDLimit = 160

// TestHeldPageConnectionsLeaveTheBotItsDescriptors: a child process with
// RLIMIT_NOFILE lowered to 160 serves the pages; the parent opens 400
// connections to them from 50 addresses and holds them; the child's own
// outgoing HTTP calls (the bot's to FlipSight) still work, and the child holds at most
// DefaultMaxPageConns page connections and the quarter more that wait.
// Before, every held connection took a descriptor: 4,200 of them under a
// 4,096 limit starved the bot.
func TestHeldPageConnectionsLeaveTheBotItsDescriptors(t *testing.T) {
	if u := os.Getenv(fdChildEnv); u != "" {
		fdChild(t, u)
		return
	}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "pong") }))
	defer server.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHeldPageConnectionsLeaveTheBotItsDescriptors$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), fdChildEnv+"="+server.URL)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	defer func() { stdin.Close(); cmd.Wait() }()
	lines := bufio.NewScanner(stdout)
	next := func(prefix string) string {
		t.Helper()
		for lines.Scan() {
			if s, ok := strings.CutPrefix(lines.Text(), prefix); ok {
				return s
			}
		}
		t.Fatalf("the child ended before %q: %v", prefix, lines.Err())
		return ""
	}
	addr := next("pages ")

	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	refused := 0
	for i := range 400 {
		// From 50 clients, none over its share: the limit and the queue
		// fill, the rest is refused.
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%50))}, Timeout: 5 * time.Second}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			refused++ // reset at once
			continue
		}
		held = append(held, c)
	}
	time.Sleep(500 * time.Millisecond) // the child accepts what it will

	fmt.Fprintln(stdin, "call")
	assert.Equal(t, "ok", next("call "), "the bot's own calls while 400 page connections are held")
	var fds int
	_, err = fmt.Sscan(next("fds "), &fds)
	require.NoError(t, err)
	t.Logf("descriptors open in the child: %d (dials refused at once: %d)", fds, refused)
	queue := DefaultMaxPageConns / pageConnShareDivisor
	assert.Less(t, fds, DefaultMaxPageConns+queue+30, "descriptors open in the child")

	// The held connections idle out; the owner's page loads again.
	for _, c := range held {
		c.Close()
	}
	held = nil
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// fdChild is the child: pages on loopback under a low descriptor limit,
// and at each "call" on stdin, 20 calls to the parent's server on fresh
// connections.
func fdChild(t *testing.T, serverURL string) {
	var rl syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl))
	rl.Cur = childFDLimit
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl))
	p := &pageServers{
		handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") }),
		hosts:   func() ([]string, error) { return []string{"127.0.0.1"}, nil },
		log:     slog.New(slog.DiscardHandler),
	}
	p.refresh()
	defer p.shutdown(time.Second)
	urls := p.urls()
	require.Len(t, urls, 1)
	fmt.Printf("\npages %s\n", strings.TrimSuffix(strings.TrimPrefix(urls[0], "http://"), "/"))
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if in.Text() != "call" {
			continue
		}
		result := "ok"
		for range 20 {
			resp, err := client.Get(serverURL)
			if err != nil {
				result = "failed: " + err.Error()
				break
			}
			resp.Body.Close()
		}
		fmt.Printf("\ncall %s\n", result)
		entries, _ := os.ReadDir("/proc/self/fd")
		fmt.Printf("\nfds %d\n", len(entries))
	}
}

// TestHeldConnectionsDoNotKeepTheOwnerOut: under a page limit lowered to
// 8, eight other clients (127.0.0.2–9: enough to fill the limit and the
// queue) hold 400 idle connections, half of them keep-alive after a
// request and half silent, and reopen each one 20 ms after the server
// closes it; the owner (127.0.0.1) still gets the
// status page at every one of 6 tries, each within 5 s. Before, the held
// connections took every slot and the owner's waited in the kernel's
// accept queue behind the attacker's reopened ones until it timed out.
func TestHeldConnectionsDoNotKeepTheOwnerOut(t *testing.T) {
	if testing.Short() {
		t.Skip("holds 400 connections for several seconds")
	}
	p := &pageServers{
		handler:  http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "status") }),
		hosts:    func() ([]string, error) { return []string{"127.0.0.1"}, nil },
		log:      slog.New(slog.DiscardHandler),
		maxConns: 8,
	}
	p.refresh()
	defer p.shutdown(time.Second)
	urls := p.urls()
	require.Len(t, urls, 1)
	addr := strings.TrimSuffix(strings.TrimPrefix(urls[0], "http://"), "/")

	stop := make(chan struct{})
	var attackers sync.WaitGroup
	var opened atomic.Int64
	for i := range 400 {
		from := &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(2+i%8))}
		keepAlive := i%2 == 0
		attackers.Go(func() {
			d := net.Dialer{LocalAddr: from, Timeout: time.Second}
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := d.Dial("tcp", addr)
				if err != nil {
					time.Sleep(50 * time.Millisecond)
					continue
				}
				opened.Add(1)
				go func() { <-stop; c.Close() }()
				if keepAlive {
					io.WriteString(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
				}
				io.Copy(io.Discard, c) // until the server closes it
				c.Close()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	defer func() { close(stop); attackers.Wait() }()
	time.Sleep(time.Second) // the attack takes hold

	var failed []string
	for i := range 6 {
		client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
		start := time.Now()
		resp, err := client.Get(urls[0])
		if err != nil {
			failed = append(failed, fmt.Sprintf("try %d: %v", i, err))
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("try %d: %d in %v (attack connections opened so far: %d)", i, resp.StatusCode, time.Since(start).Round(time.Millisecond), opened.Load())
		if string(body) != "status" {
			failed = append(failed, fmt.Sprintf("try %d: %d %q", i, resp.StatusCode, body))
		}
		time.Sleep(300 * time.Millisecond)
	}
	assert.Empty(t, failed, "the owner's tries")
}
