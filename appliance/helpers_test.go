package appliance

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/testutil"
)

// Two well-formed tokens.
const (
	tokA = "fsbm_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	tokB = "fsbm_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
)

// mustToken is s as a flipsight.Token (any printable ASCII without spaces).
func mustToken(t testing.TB, s string) flipsight.Token {
	t.Helper()
	tok, err := flipsight.NewToken(s)
	require.NoError(t, err)
	return tok
}

// fakePlatform serves on loopback; WaitForClock waits for clock when set.
type fakePlatform struct {
	clock chan struct{}
}

func (fakePlatform) Model() string                { return "Raspberry Pi 4 Model B Rev 1.5 (test)" }
func (fakePlatform) PageHosts() ([]string, error) { return []string{"127.0.0.1"}, nil }
func (p fakePlatform) WaitForClock(ctx context.Context) error {
	if p.clock == nil {
		return nil
	}
	select {
	case <-p.clock:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fakeChecker answers CheckToken from a table; unknown tokens are rejected.
type fakeChecker struct {
	mu    sync.Mutex
	bots  map[string]state.BotInfo
	err   error // returned for every token when set
	calls int
	// gate, when set, is called with the token before each check is
	// answered, outside mu (tests hold checks there).
	gate func(tok string)
}

func (c *fakeChecker) CheckToken(ctx context.Context, tok flipsight.Token) (state.BotInfo, error) {
	c.mu.Lock()
	gate := c.gate
	c.mu.Unlock()
	if gate != nil {
		gate(tok.Reveal())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.err != nil {
		return state.BotInfo{}, c.err
	}
	if b, ok := c.bots[tok.Reveal()]; ok {
		return b, nil
	}
	return state.BotInfo{}, ErrTokenRejected
}

// fakePlayer reports itself online with a scripted report, waits for its
// context, then takes drain to "finish the move in flight".
type fakePlayer struct {
	mu      sync.Mutex
	tokens  []string
	sets    []settings.Settings
	rep     bot.Status
	started chan string
	drain   time.Duration
	hang    chan struct{} // when set as ctx ends, Play ignores cancellation until closed
	drained int
	causes  []error // each ended Play's context.Cause
	err     error   // returned at once when set
	// report is the running Play's report function (nil when none runs).
	report func(bot.Status)
}

func newFakePlayer() *fakePlayer {
	return &fakePlayer{started: make(chan string, 16), rep: bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot", Rating: 1523.4}}}
}

func (p *fakePlayer) Play(ctx context.Context, tok flipsight.Token, s settings.Settings, report func(bot.Status)) error {
	p.mu.Lock()
	p.tokens = append(p.tokens, tok.Reveal())
	p.sets = append(p.sets, s)
	rep, err := p.rep, p.err
	p.report = report
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.report = nil
		p.mu.Unlock()
	}()
	p.started <- tok.Reveal()
	if err != nil {
		return err
	}
	report(rep)
	<-ctx.Done()
	p.mu.Lock()
	hang := p.hang
	p.mu.Unlock()
	if hang != nil {
		<-hang
	}
	time.Sleep(p.drain)
	p.mu.Lock()
	p.drained++
	p.causes = append(p.causes, context.Cause(ctx))
	p.mu.Unlock()
	return nil
}

// push makes the running Play report rep now (as the bot does when a
// match starts or ends).
func (p *fakePlayer) push(rep bot.Status) {
	p.mu.Lock()
	report := p.report
	p.rep = rep
	p.mu.Unlock()
	if report != nil {
		report(rep)
	}
}

func (p *fakePlayer) setReport(rep bot.Status) {
	p.mu.Lock()
	p.rep = rep
	p.mu.Unlock()
}

func (p *fakePlayer) lastSettings() settings.Settings {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sets[len(p.sets)-1]
}

func (p *fakePlayer) waitStart(t *testing.T) string {
	t.Helper()
	select {
	case tok := <-p.started:
		return tok
	case <-time.After(10 * time.Second):
		t.Fatal("the bot was not started")
	}
	return ""
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer = testutil.SyncBuffer

const testPassword = "correct horse battery"

// testEnv is a running appliance on loopback.
type testEnv struct {
	t       *testing.T
	a       *app
	base    string
	client  *http.Client
	logs    *syncBuffer
	player  *fakePlayer
	checker *fakeChecker
	cancel  context.CancelFunc
	done    chan int
	// bodies collects every answer body, to check the token never appears.
	bodies *syncBuffer
}

type envOption func(*Config, *app)

func startEnv(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	return startEnvCtx(t, context.Background(), opts...)
}

// startEnvCtx runs the appliance until parent ends or the test stops it.
func startEnvCtx(t *testing.T, parent context.Context, opts ...envOption) *testEnv {
	t.Helper()
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "gokr-pw.txt")
	require.NoError(t, os.WriteFile(pwFile, []byte(testPassword+"\n"), 0o600))
	logs := &syncBuffer{}
	player := newFakePlayer()
	checker := &fakeChecker{bots: map[string]state.BotInfo{
		tokA: {ID: 9, Name: "TestBot", Rating: 1500},
		tokB: {ID: 9, Name: "TestBot", Rating: 1500},
	}}
	served := make(chan string, 4)
	cfg := Config{
		Dir: filepath.Join(dir, "home", "flipbot"), Perm: dir, Port: -1,
		PasswordFiles: []string{pwFile}, Platform: fakePlatform{},
		Checker: checker, Player: player,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Drain:  5 * time.Second, Version: "test",
		OnServing: func(urls []string) {
			if len(urls) > 0 {
				served <- urls[0]
			}
		},
	}
	ctx, cancel := context.WithCancel(parent)
	a, err := newApp(cfg)
	require.NoError(t, err)
	for _, o := range opts {
		o(&a.cfg, a)
	}
	jar, _ := cookiejar.New(nil)
	e := &testEnv{
		t: t, a: a, logs: logs, player: player, checker: checker, cancel: cancel,
		done: make(chan int, 1), bodies: &syncBuffer{},
		client: &http.Client{Jar: jar, Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
	}
	go func() { e.done <- a.run(ctx) }()
	select {
	case u := <-served:
		e.base = strings.TrimSuffix(u, "/")
	case <-time.After(10 * time.Second):
		t.Fatal("pages not served")
	}
	t.Cleanup(func() {
		e.stop()
	})
	return e
}

// stop cancels the run (SIGTERM) and returns its exit code.
func (e *testEnv) stop() int {
	e.cancel()
	select {
	case code := <-e.done:
		e.done <- code
		return code
	case <-time.After(20 * time.Second):
		e.t.Fatal("appliance did not stop")
	}
	return -1
}

// waitFor waits for a hub change after which cond holds.
func (e *testEnv) waitFor(what string, cond func(state.Status) bool) state.Status {
	e.t.Helper()
	return e.waitForLong(what, 10*time.Second, cond)
}

func (e *testEnv) waitForLong(what string, limit time.Duration, cond func(state.Status) bool) state.Status {
	e.t.Helper()
	c, cancel := e.a.hub.Subscribe()
	defer cancel()
	deadline := time.After(limit)
	for {
		st := e.a.hub.Snapshot()
		if cond(st) {
			return st
		}
		select {
		case <-c:
		case <-deadline:
			e.t.Fatalf("timed out waiting for %s; state %s", what, st.Kind)
		}
	}
}

func (e *testEnv) do(req *http.Request) (int, string, http.Header) {
	e.t.Helper()
	resp, err := e.client.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	e.bodies.Write(b)
	for k, v := range resp.Header {
		e.bodies.Write([]byte(k + ": " + strings.Join(v, ",") + "\n"))
	}
	return resp.StatusCode, string(b), resp.Header
}

func (e *testEnv) get(path string, auth bool) (int, string) {
	req, err := http.NewRequest(http.MethodGet, e.base+path, nil)
	require.NoError(e.t, err)
	if auth {
		req.SetBasicAuth(web.AdminUser, testPassword)
	}
	code, body, _ := e.do(req)
	return code, body
}

func (e *testEnv) post(path string, form url.Values, user, pass string) (int, string, http.Header) {
	req, err := http.NewRequest(http.MethodPost, e.base+path, strings.NewReader(form.Encode()))
	require.NoError(e.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	return e.do(req)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf loads path and returns its form's CSRF token.
func (e *testEnv) csrf(path string, auth bool) string {
	e.t.Helper()
	code, body := e.get(path, auth)
	require.Equal(e.t, http.StatusOK, code, body)
	m := csrfRe.FindStringSubmatch(body)
	require.NotNil(e.t, m, "no CSRF field on %s", path)
	return m[1]
}
