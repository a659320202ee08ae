package appliance

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/flipsight"
)

// The attacks of issue 14 on the pages, each refused.

// csrfPair returns a CSRF cookie value and the form token that the setup
// page gives with it.
func (e *testEnv) csrfPair() (cookie, token string) {
	e.t.Helper()
	cookie = "0123456789abcdefghijABCDEFGHIJ"
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(&http.Cookie{Name: web.CSRFCookie, Value: cookie})
	m := csrfRe.FindStringSubmatch(e.serveFrom("10.0.0.254", req).Body.String())
	require.NotNil(e.t, m, "no CSRF field on the setup page")
	return cookie, m[1]
}

// serveFrom sends a request through the appliance's handler as if it came
// from addr (in process: the tests' LAN has one address).
func (e *testEnv) serveFrom(addr string, req *http.Request) *httptest.ResponseRecorder {
	req.RemoteAddr = addr + ":40000"
	req.Host = "127.0.0.1"
	rec := httptest.NewRecorder()
	e.a.pages.ServeHTTP(rec, req)
	return rec
}

func (e *testEnv) setupFrom(addr, code, token string) int {
	cookie, csrf := e.csrfPair()
	form := url.Values{"csrf": {csrf}, "code": {code}, "token": {token}}
	req := httptest.NewRequest(http.MethodPost, "/setup", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: web.CSRFCookie, Value: cookie})
	return e.serveFrom(addr, req).Code
}

func wrongCode(code string) string {
	return fmt.Sprintf("%06d", (atoi(strings.NewReplacer("-", "", " ", "").Replace(code))+1)%1_000_000)
}

// Four wrong codes, then six connections that hold their bodies: only one
// of the six is checked (the fifth try); the others are refused before
// their bodies are read. The old limiter checked all ten.
func TestSetupTriesCountBeforeTheBody(t *testing.T) {
	e := startEnv(t)
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)
	for i := 0; i < web.FailPerClient-1; i++ {
		status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {wrongCode(code)}, "token": {tokA}}, "", "")
		require.Equal(t, http.StatusForbidden, status)
	}
	base, err := url.Parse(e.base)
	require.NoError(t, err)
	var cookie string
	for _, c := range e.client.Jar.Cookies(base) {
		if c.Name == web.CSRFCookie {
			cookie = c.Value
		}
	}
	require.NotEmpty(t, cookie)
	body := url.Values{"csrf": {csrf}, "code": {wrongCode(code)}, "token": {tokA}}.Encode()
	head := fmt.Sprintf("POST /setup HTTP/1.1\r\nHost: %s\r\nCookie: %s=%s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
		base.Host, web.CSRFCookie, cookie, len(body))
	const n = 6
	conns := make([]net.Conn, n)
	statuses := make(chan int, n)
	for i := range conns {
		c, err := net.Dial("tcp", base.Host)
		require.NoError(t, err)
		defer c.Close()
		_, err = c.Write([]byte(head + body[:10]))
		require.NoError(t, err)
		conns[i] = c
		go func() {
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				statuses <- -1
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		}()
	}
	// The refused ones answer while the bodies are held; give them the
	// chance, then send the rest of every body.
	var got []int
	deadline := time.After(5 * time.Second)
collect:
	for len(got) < n-1 {
		select {
		case s := <-statuses:
			got = append(got, s)
		case <-deadline:
			break collect
		}
	}
	for _, c := range conns {
		_, _ = c.Write([]byte(body[10:]))
	}
	for len(got) < n {
		select {
		case s := <-statuses:
			got = append(got, s)
		case <-time.After(20 * time.Second):
			t.Fatalf("answers: %v", got)
		}
	}
	checked, refused := 0, 0
	for _, s := range got {
		switch s {
		case http.StatusForbidden:
			checked++
		case http.StatusTooManyRequests:
			refused++
		}
	}
	assert.Equal(t, 1, checked, "only the fifth try is checked: %v", got)
	assert.Equal(t, n-1, refused, "the others are refused: %v", got)
}

// Twenty wrong codes from four LAN addresses: the code becomes twelve
// digits, and the owner, reading it off the device, still gets in from a
// fresh address (the old global lockout refused everyone for ten minutes).
func TestCodeLockoutKeepsTheOwnerIn(t *testing.T) {
	e := startEnv(t)
	first := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	for i := 0; i < web.FailGlobal/web.FailPerClient; i++ {
		for range web.FailPerClient {
			require.Equal(t, http.StatusForbidden, e.setupFrom(fmt.Sprintf("10.0.0.%d", i+1), wrongCode(first), tokA))
		}
	}
	st := e.waitFor("a long code", func(s state.Status) bool { return s.PairingCode != first })
	require.Regexp(t, `^[0-9]{4}-[0-9]{4}-[0-9]{4}$`, st.PairingCode)
	assert.Contains(t, e.logs.String(), st.PairingCode, "the new code is in the device's log")
	assert.Equal(t, http.StatusForbidden, e.setupFrom("10.0.0.50", first, tokA), "the old code is dead")
	assert.Equal(t, http.StatusSeeOther, e.setupFrom("10.0.0.99", st.PairingCode, tokA), "the owner gets in")
}

// The same for the admin password: wrong passwords from many addresses
// lock nobody out; each address stays limited.
func TestPasswordLockoutKeepsTheOwnerIn(t *testing.T) {
	e := provisioned(t)
	get := func(addr, pass string) int {
		req := httptest.NewRequest(http.MethodGet, "/token", nil)
		req.SetBasicAuth(web.AdminUser, pass)
		return e.serveFrom(addr, req).Code
	}
	for i := 0; i < web.FailGlobal/web.FailPerClient; i++ {
		for range web.FailPerClient {
			require.Equal(t, http.StatusUnauthorized, get(fmt.Sprintf("10.0.0.%d", i+1), "guess"))
		}
	}
	assert.Equal(t, http.StatusTooManyRequests, get("10.0.0.1", testPassword), "an address that failed waits")
	assert.Equal(t, http.StatusOK, get("10.0.0.99", testPassword), "the owner gets in")
}

// gatedChecker holds every token check until open is closed.
type gatedChecker struct {
	inner   TokenChecker
	entered chan struct{}
	open    chan struct{}
}

func (g *gatedChecker) CheckToken(ctx context.Context, tok flipsight.Token) (state.BotInfo, error) {
	g.entered <- struct{}{}
	<-g.open
	return g.inner.CheckToken(ctx, tok)
}

// Two setup posts at once with different tokens: one wins, the other is
// told "already set up"; the stored token is the winner's.
func TestConcurrentSetupsOneWins(t *testing.T) {
	g := &gatedChecker{entered: make(chan struct{}, 4), open: make(chan struct{})}
	e := startEnv(t, func(c *Config, a *app) {
		g.inner = a.token.checker
		a.token.checker = g
	})
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)
	var wg sync.WaitGroup
	results := map[string]int{}
	var mu sync.Mutex
	post := func(tok string) {
		defer wg.Done()
		status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tok}}, "", "")
		mu.Lock()
		results[tok] = status
		mu.Unlock()
	}
	wg.Add(2)
	go post(tokA)
	<-g.entered // the first is checking its token
	go post(tokB)
	// Give the second post time to reach the point where it waits (old
	// code: for the token lock, then it replaced the first token). The
	// outcome does not depend on it: a later post is refused as well.
	time.Sleep(300 * time.Millisecond)
	close(g.open)
	wg.Wait()
	var won, lost []string
	for tok, s := range results {
		switch s {
		case http.StatusSeeOther:
			won = append(won, tok)
		case http.StatusConflict:
			lost = append(lost, tok)
		}
	}
	require.Len(t, won, 1, "statuses %v", results)
	require.Len(t, lost, 1, "statuses %v", results)
	stored, err := store.NewTokenFile(e.a.cfg.Dir).Load()
	require.NoError(t, err)
	assert.Equal(t, won[0], stored.Reveal(), "the winner's token is kept")
}

// The notice after setup reaches the browser that sent the form, not a
// visitor who loads the page first.
func TestFlashBelongsToOneBrowser(t *testing.T) {
	e := startEnv(t)
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)
	status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tokA}}, "", "")
	require.Equal(t, http.StatusSeeOther, status)
	e.waitFor("online", func(s state.Status) bool { return s.Online })

	jar, _ := cookiejar.New(nil)
	other := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := other.Get(e.base + "/")
	require.NoError(t, err)
	var b strings.Builder
	_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
	resp.Body.Close()
	assert.NotContains(t, b.String(), "Token accepted", "another browser does not get the notice")

	_, page := e.get("/", false)
	assert.Contains(t, page, "Token accepted", "the browser that set the device up does")
	_, page = e.get("/", false)
	assert.NotContains(t, page, "Token accepted", "once")
}

// A token that cannot be saved: the notice says why, without the path.
func TestSaveFailureNoticeHasNoPath(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) { a.fs = erofs() })
	st := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" })
	csrf := e.csrf("/", false)
	status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {st.PairingCode}, "token": {tokA}}, "", "")
	require.Equal(t, http.StatusSeeOther, status)
	_, page := e.get("/", false)
	notice := page[strings.Index(page, "could not be saved"):]
	notice = notice[:strings.IndexByte(notice, '<')]
	assert.Contains(t, notice, "read-only")
	assert.NotContains(t, notice, e.a.cfg.Dir)
	assert.NotContains(t, notice, "/", "no path at all: %s", notice)
}

func TestHostHeaderIsChecked(t *testing.T) {
	e := startEnv(t)
	e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" })
	get := func(host string) int {
		req, err := http.NewRequest(http.MethodGet, e.base+"/api/status", nil)
		require.NoError(t, err)
		req.Host = host
		status, _, _ := e.do(req)
		return status
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(e.base, "http://"))
	hostname := e.a.hub.Snapshot().Device.Hostname
	assert.Equal(t, http.StatusMisdirectedRequest, get("attacker.example:"+port), "a rebound name")
	assert.Equal(t, http.StatusMisdirectedRequest, get(hostname+".attacker.example"), "the host name under another domain")
	assert.Equal(t, http.StatusOK, get("127.0.0.1:"+port))
	assert.Equal(t, http.StatusOK, get(hostname+".local:"+port))
	assert.Equal(t, http.StatusOK, get("localhost:"+port))
}
