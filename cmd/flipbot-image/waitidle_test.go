package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	idleJSON    = `{"state":"online_idle","matches":[],"recent_results":[]}`
	playingJSON = `{"state":"in_game","matches":[{"id":12,"game_mode":"std","status":"running","opponent":"house","legs":[]}]}`
	twoJSON     = `{"state":"in_game","matches":[{"id":12,"game_mode":"std","opponent":"house"},{"id":-3,"human":true,"game_mode":"std"}]}`
)

// device answers /api/status with the bodies in turn, the last one for
// ever, and counts the requests.
type device struct {
	mu     sync.Mutex
	bodies []string
	n      int
	hosts  []string
}

func (d *device) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.hosts = append(d.hosts, r.Host)
	if r.URL.Path != "/api/status" {
		http.NotFound(w, r)
		return
	}
	b := d.bodies[min(d.n, len(d.bodies)-1)]
	d.n++
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, b)
}

func (d *device) requests() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

func testWaiter(url string, out *bytes.Buffer) waiter {
	return waiter{url: url, client: &http.Client{Timeout: 2 * time.Second}, poll: time.Millisecond,
		timeout: 5 * time.Second, reportEvery: time.Hour, downGrace: time.Hour, now: time.Now, out: out}
}

// closedURL is a URL on loopback where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "http://" + addr + "/api/status"
}

func TestWaitIdle(t *testing.T) {
	tests := []struct {
		name     string
		bodies   []string
		wantErr  string
		wantOut  []string
		notOut   []string
		requests int
	}{
		{name: "idle at once: no output", bodies: []string{idleJSON}, requests: 1},
		{name: "a match, then idle", bodies: []string{playingJSON, playingJSON, playingJSON, idleJSON},
			wantOut: []string{"waiting for match #12 vs house (std) to end…", "no match runs on the device"}, requests: 4},
		{name: "two matches, then one, then idle", bodies: []string{twoJSON, playingJSON, idleJSON},
			wantOut: []string{"waiting for match #12 vs house (std), match #-3 vs a person (std) to end…", "waiting for match #12 vs house (std) to end…"}, requests: 3},
		{name: "bad JSON", bodies: []string{`{"state":`}, wantErr: "not flipbot's status"},
		{name: "JSON of something else", bodies: []string{`{"ok":true}`}, wantErr: "no state or matches"},
		{name: "a match, then bad JSON", bodies: []string{playingJSON, `<html>`}, wantErr: "not flipbot's status"},
		{name: "huge body", bodies: []string{`{"state":"in_game","matches":[],"x":"` + strings.Repeat("a", maxStatusBytes) + `"}`},
			wantErr: "over 1048576 bytes"},
		{name: "a hostile opponent's name", bodies: []string{`{"state":"in_game","matches":[{"id":1,"game_mode":"std","opponent":"ev\u001b[2Jil` + strings.Repeat("x", 100) + `"}]}`, idleJSON},
			wantOut: []string{"vs ev[2Jil" + strings.Repeat("x", 33) + "… (std)"}, notOut: []string{"\x1b"}, requests: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &device{bodies: tt.bodies}
			srv := httptest.NewServer(d)
			defer srv.Close()
			var out bytes.Buffer
			err := testWaiter(srv.URL+"/api/status", &out).wait(context.Background())
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Contains(t, err.Error(), "UPDATE_NOW=1", "the error says how to update anyway")
				return
			}
			require.NoError(t, err)
			for _, w := range tt.wantOut {
				assert.Contains(t, out.String(), w)
			}
			for _, w := range tt.notOut {
				assert.NotContains(t, out.String(), w)
			}
			if len(tt.wantOut) == 0 {
				assert.Empty(t, out.String())
			}
			assert.Equal(t, tt.requests, d.requests())
		})
	}
}

func TestWaitIdleNotOK(t *testing.T) {
	// The device's host check refuses a name that is not its own.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "This device answers only to its own addresses and names.", http.StatusMisdirectedRequest)
	}))
	defer srv.Close()
	var out bytes.Buffer
	err := testWaiter(srv.URL+"/api/status", &out).wait(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "421 Misdirected Request")
	assert.Contains(t, err.Error(), "check APP_URL")
}

func TestWaitIdleTimeout(t *testing.T) {
	d := &device{bodies: []string{playingJSON}}
	srv := httptest.NewServer(d)
	defer srv.Close()
	var out bytes.Buffer
	w := testWaiter(srv.URL+"/api/status", &out)
	w.timeout = 50 * time.Millisecond
	err := w.wait(context.Background())
	require.Error(t, err)
	assert.Equal(t, "match #12 vs house (std) still running after 50ms: not updating (UPDATE_NOW=1 updates at once)", err.Error())
	assert.Greater(t, d.requests(), 2, "it polled")
	assert.Equal(t, 1, strings.Count(out.String(), "waiting for"), "one line while the same match runs and no report is due")
}

func TestWaitIdleReportsEvery(t *testing.T) {
	d := &device{bodies: []string{playingJSON, playingJSON, playingJSON, playingJSON, idleJSON}}
	srv := httptest.NewServer(d)
	defer srv.Close()
	var out bytes.Buffer
	w := testWaiter(srv.URL+"/api/status", &out)
	// A clock that moves 20 s per reading: a report is due every other poll.
	var mu sync.Mutex
	now := time.Unix(0, 0)
	w.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(20 * time.Second)
		return now
	}
	w.reportEvery = 30 * time.Second
	require.NoError(t, w.wait(context.Background()))
	assert.Equal(t, 2, strings.Count(out.String(), "waiting for match #12"), "at most every 30 s:\n%s", out.String())
}

func TestWaitIdleUnreachable(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, testWaiter(closedURL(t), &out).wait(context.Background()), "a device that does not answer has no match to protect")
	assert.Contains(t, out.String(), "warning:")
	assert.Contains(t, out.String(), "does not answer")
}

// goesDown answers the first request with a match running and then fails
// every request as a device that went off the network.
type goesDown struct {
	mu sync.Mutex
	n  int
}

func (g *goesDown) RoundTrip(r *http.Request) (*http.Response, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	if g.n == 1 {
		rec := httptest.NewRecorder()
		rec.WriteString(playingJSON)
		return rec.Result(), nil
	}
	return nil, errors.New("connect: no route to host")
}

func TestWaitIdleGoesDown(t *testing.T) {
	t.Run("within the grace: it keeps waiting", func(t *testing.T) {
		var out bytes.Buffer
		w := testWaiter("http://flipbot:8080/api/status", &out)
		w.client = &http.Client{Transport: &goesDown{}}
		w.timeout = 200 * time.Millisecond
		err := w.wait(context.Background())
		require.Error(t, err, "a moment's silence does not let the update through")
		assert.Equal(t, "match #12 vs house (std) still running after 200ms: not updating (UPDATE_NOW=1 updates at once)", err.Error())
		assert.NotContains(t, out.String(), "warning")
	})
	t.Run("past the grace: the update goes on", func(t *testing.T) {
		var out bytes.Buffer
		w := testWaiter("http://flipbot:8080/api/status", &out)
		tr := &goesDown{}
		w.client = &http.Client{Transport: tr}
		w.downGrace = 30 * time.Millisecond
		require.NoError(t, w.wait(context.Background()))
		assert.Contains(t, out.String(), "waiting for match #12")
		assert.Contains(t, out.String(), "warning: http://flipbot:8080/api/status does not answer")
		assert.Greater(t, tr.n, 2, "it retried through the grace")
	})
}

func TestWaitIdleCanceled(t *testing.T) {
	d := &device{bodies: []string{playingJSON}}
	srv := httptest.NewServer(d)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	var out bytes.Buffer
	w := testWaiter(srv.URL+"/api/status", &out)
	err := w.wait(ctx)
	require.Error(t, err, "Ctrl-C stops the wait and the update")
}

func TestWaitIdleCommand(t *testing.T) {
	d := &device{bodies: []string{idleJSON}}
	srv := httptest.NewServer(d)
	defer srv.Close()
	var out, errOut bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"wait-idle", "-url", srv.URL + "/", "-poll", "10ms"}, nil, &out, &errOut), errOut.String())
	assert.Equal(t, 1, d.requests())

	for _, args := range [][]string{
		{"wait-idle"},
		{"wait-idle", "-url", "flipbot:8080"},
		{"wait-idle", "-url", "ftp://flipbot"},
		{"wait-idle", "-url", srv.URL, "-poll", "0s"},
		{"wait-idle", "-url", srv.URL, "extra"},
	} {
		errOut.Reset()
		assert.Equal(t, 2, run(context.Background(), args, nil, &out, &errOut), "%v", args)
		assert.Contains(t, errOut.String(), "wait-idle", "%v", args)
	}

	d = &device{bodies: []string{`{}`}}
	bad := httptest.NewServer(d)
	defer bad.Close()
	errOut.Reset()
	assert.Equal(t, 1, run(context.Background(), []string{"wait-idle", "-url", bad.URL}, nil, &out, &errOut))
	assert.Contains(t, errOut.String(), "flipbot-image wait-idle: ")
}

func TestStatusURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://flipbot:8080":           "http://flipbot:8080/api/status",
		"http://flipbot:8080/":          "http://flipbot:8080/api/status",
		"http://192.168.1.20:8080/?x#y": "http://192.168.1.20:8080/api/status",
		"http://[fe80::1%25eth0]:8080":  "http://[fe80::1%25eth0]:8080/api/status",
		"https://flipbot.local":         "https://flipbot.local/api/status",
	} {
		got, err := statusURL(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
}

// FuzzDecodeStatus: any body the device (or whatever answers at APP_URL)
// sends decodes or is refused, without a panic; what it prints is
// printable.
func FuzzDecodeStatus(f *testing.F) {
	for _, s := range []string{idleJSON, playingJSON, twoJSON, `{}`, `null`, `{"state":"x","matches":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := decodeStatus(b)
		if err != nil {
			return
		}
		require.NotEmpty(t, st.State)
		require.NotNil(t, st.Matches)
		for _, m := range st.Matches {
			for _, r := range m.String() {
				require.True(t, r >= ' ' && r != 0x7f || r > 0x9f, "printable: %q", m.String())
			}
		}
	})
}
