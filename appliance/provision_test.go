package appliance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/flipsight"
)

// The first-boot flow: pairing code + token → checked → saved 0600 → the bot
// starts without a restart; the token never comes back to the browser or
// the log.
func TestProvisioningFlow(t *testing.T) {
	e := startEnv(t)
	st := e.waitFor("setup needed", func(s state.Status) bool { return s.Kind == state.KindSetupNeeded && s.PairingCode != "" })
	code := st.PairingCode
	assert.Contains(t, e.logs.String(), code, "the pairing code is in the log (gokrazy's UI shows it to the owner)")

	status, body := e.get("/", false)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "Set up your bot")
	assert.NotContains(t, body, code, "the page must not show the code it asks for")
	_, api := e.get("/api/status", false)
	assert.NotContains(t, api, code, "/api/status must not show the pairing code")
	assert.Contains(t, api, `"state": "setup_needed"`)

	csrf := csrfRe.FindStringSubmatch(body)[1]
	status, body, hdr := e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {"  " + tokA + "\n"}}, "", "")
	require.Equal(t, http.StatusSeeOther, status, body)
	assert.Equal(t, "/", hdr.Get("Location"))
	assert.Equal(t, tokA, e.player.waitStart(t), "the bot starts with the pasted token, no reboot")

	b, err := os.ReadFile(filepath.Join(e.a.cfg.Dir, store.TokenFileName))
	require.NoError(t, err)
	assert.Equal(t, tokA+"\n", string(b))
	fi, err := os.Stat(filepath.Join(e.a.cfg.Dir, store.TokenFileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	st = e.waitFor("online", func(s state.Status) bool { return s.Kind == state.KindOnlineIdle })
	assert.Equal(t, state.TokenStored, st.Token)
	assert.Empty(t, st.PairingCode, "the code is void once set up")

	status, body = e.get("/", false)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "TestBot")
	assert.Contains(t, body, "Token accepted")

	// The pairing code no longer opens anything.
	status, _, _ = e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tokB}}, "", "")
	assert.Equal(t, http.StatusConflict, status)

	assert.NotContains(t, e.bodies.String(), tokA, "no answer may carry the token")
	assert.NotContains(t, e.logs.String(), tokA, "no log line may carry the token")
	assert.NotContains(t, e.logs.String(), tokA[len(store.TokenPrefix):])
}

func TestSetupChecks(t *testing.T) {
	e := startEnv(t)
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	const malformed = "fsbm_tooShort"
	const rejected = "fsbm_RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR"

	tests := []struct {
		name     string
		form     url.Values
		want     int
		wantText string
	}{
		{"no CSRF token", url.Values{"code": {code}, "token": {tokA}}, http.StatusForbidden, "CSRF"},
		{"forged CSRF token", url.Values{"csrf": {"forged"}, "code": {code}, "token": {tokA}}, http.StatusForbidden, "CSRF"},
		{"wrong pairing code", url.Values{"csrf": {csrf}, "code": {wrong}, "token": {tokA}}, http.StatusForbidden, "Wrong pairing code"},
		{"not a token", url.Values{"csrf": {csrf}, "code": {code}, "token": {"hello"}}, http.StatusUnprocessableEntity, "fsbm_"},
		{"truncated token", url.Values{"csrf": {csrf}, "code": {code}, "token": {malformed}}, http.StatusUnprocessableEntity, "too short"},
		{"token rejected by FlipSight", url.Values{"csrf": {csrf}, "code": {code}, "token": {rejected}}, http.StatusUnprocessableEntity, "rejected"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body, _ := e.post("/setup", tc.form, "", "")
			assert.Equal(t, tc.want, status)
			assert.Contains(t, body, tc.wantText)
		})
	}
	_, err := os.Stat(filepath.Join(e.a.cfg.Dir, store.TokenFileName))
	assert.ErrorIs(t, err, os.ErrNotExist, "nothing saved")
	assert.Equal(t, state.KindSetupNeeded, e.a.hub.Snapshot().Kind)
	all := e.bodies.String() + e.logs.String()
	for _, tok := range []string{malformed, rejected, tokA} {
		assert.NotContains(t, all, tok, "a token was echoed")
	}
}

func TestSetupNetworkErrorKeepsNothing(t *testing.T) {
	e := startEnv(t)
	e.checker.err = fmt.Errorf("%w: dial tcp: connection refused", ErrNetwork)
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)
	status, body, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tokA}}, "", "")
	assert.Equal(t, http.StatusUnprocessableEntity, status)
	assert.Contains(t, body, "Could not check the token")
	assert.NotContains(t, body, tokA)
}

func TestPairingCodeRateLimit(t *testing.T) {
	e := startEnv(t)
	code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	csrf := e.csrf("/", false)
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	for i := 0; i < web.FailPerClient; i++ {
		status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {wrong}, "token": {tokA}}, "", "")
		require.Equal(t, http.StatusForbidden, status, "attempt %d", i+1)
	}
	status, body, hdr := e.post("/setup", url.Values{"csrf": {csrf}, "code": {code}, "token": {tokA}}, "", "")
	assert.Equal(t, http.StatusTooManyRequests, status, "even the right code waits once the limit is hit")
	assert.NotEmpty(t, hdr.Get("Retry-After"))
	assert.Contains(t, body, "Too many")
	assert.Equal(t, 0, e.checker.calls, "no token was checked")
}

func TestPairingCodeRotatesAfterGlobalLimit(t *testing.T) {
	e := startEnv(t)
	first := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
	for i := 0; i < web.FailGlobal-1; i++ {
		require.Equal(t, http.StatusForbidden, e.setupFrom(fmt.Sprintf("10.0.0.%d", i), wrongCode(first), tokA))
	}
	require.Equal(t, first, e.a.PairingCode(), "the same code until the global limit")
	csrf := e.csrf("/", false)
	wrong := fmt.Sprintf("%06d", (atoi(first)+1)%1_000_000)
	status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {wrong}, "token": {tokA}}, "", "")
	require.Equal(t, http.StatusForbidden, status)
	st := e.waitFor("a new code", func(s state.Status) bool { return s.PairingCode != first })
	assert.Regexp(t, `^[0-9]{4}-[0-9]{4}-[0-9]{4}$`, st.PairingCode, "twelve digits after the global limit")
	assert.Contains(t, e.logs.String(), st.PairingCode)
}

// provisioned starts an env with tokA already stored.
func provisioned(t *testing.T, opts ...envOption) *testEnv {
	t.Helper()
	e := startEnv(t, append([]envOption{func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
	}}, opts...)...)
	require.Equal(t, tokA, e.player.waitStart(t))
	e.waitFor("online", func(s state.Status) bool { return s.Kind == state.KindOnlineIdle })
	return e
}

func TestAdminPassword(t *testing.T) {
	e := provisioned(t)
	status, body := e.get("/token", false)
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Contains(t, body, "password")

	req, _ := http.NewRequest(http.MethodGet, e.base+"/settings", nil)
	req.SetBasicAuth("root", testPassword)
	status, _, hdr := e.do(req)
	assert.Equal(t, http.StatusUnauthorized, status, "the user must be gokrazy")
	assert.Contains(t, hdr.Get("WWW-Authenticate"), "Basic")

	status, body = e.get("/token", true)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, "saved on this device")
	assert.NotContains(t, body, tokA, "the token page never shows the token")

	for i := 0; i < web.FailPerClient-1; i++ {
		req, _ := http.NewRequest(http.MethodGet, e.base+"/token", nil)
		req.SetBasicAuth(web.AdminUser, "guess")
		status, _, _ := e.do(req)
		require.Equal(t, http.StatusUnauthorized, status)
	}
	status, _ = e.get("/token", true)
	assert.Equal(t, http.StatusTooManyRequests, status, "wrong passwords are rate-limited, then even the right one waits")
}

func TestNoPasswordConfiguredShutsAdminPages(t *testing.T) {
	e := provisioned(t, func(c *Config, a *app) { require.NoError(t, os.Remove(c.PasswordFiles[0])) })
	status, body := e.get("/settings", true)
	assert.Equal(t, http.StatusForbidden, status)
	assert.Contains(t, body, "no admin password")
}

func TestChangeAndRemoveToken(t *testing.T) {
	e := provisioned(t)
	csrf := e.csrf("/token", true)

	status, _, _ := e.post("/token", url.Values{"csrf": {csrf}, "action": {"replace"}, "token": {tokB}}, "", "")
	assert.Equal(t, http.StatusUnauthorized, status, "changing the token needs the password")
	status, _, _ = e.post("/token", url.Values{"action": {"replace"}, "token": {tokB}}, web.AdminUser, testPassword)
	assert.Equal(t, http.StatusForbidden, status, "and the CSRF token")

	status, body, _ := e.post("/token", url.Values{"csrf": {csrf}, "action": {"replace"}, "token": {tokB}}, web.AdminUser, testPassword)
	require.Equal(t, http.StatusOK, status, body)
	assert.Contains(t, body, "Token accepted")
	assert.Equal(t, tokB, e.player.waitStart(t), "the bot restarts with the new token")
	got, err := store.NewTokenFile(e.a.cfg.Dir).Load()
	require.NoError(t, err)
	assert.Equal(t, tokB, got.Reveal())

	status, _, hdr := e.post("/token", url.Values{"csrf": {csrf}, "action": {"remove"}}, web.AdminUser, testPassword)
	require.Equal(t, http.StatusSeeOther, status)
	assert.Equal(t, "/", hdr.Get("Location"))
	st := e.waitFor("setup needed again", func(s state.Status) bool { return s.Kind == state.KindSetupNeeded && s.PairingCode != "" })
	assert.False(t, st.Online)
	_, err = store.NewTokenFile(e.a.cfg.Dir).Load()
	assert.ErrorIs(t, err, store.ErrNoToken)

	all := e.bodies.String() + e.logs.String()
	assert.NotContains(t, all, tokA)
	assert.NotContains(t, all, tokB)
}

func TestCrossOriginPostRefused(t *testing.T) {
	e := provisioned(t)
	csrf := e.csrf("/token", true)
	req, _ := http.NewRequest(http.MethodPost, e.base+"/token", strings.NewReader(url.Values{"csrf": {csrf}, "action": {"remove"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.SetBasicAuth(web.AdminUser, testPassword)
	status, _, _ := e.do(req)
	assert.Equal(t, http.StatusForbidden, status)
	_, err := store.NewTokenFile(e.a.cfg.Dir).Load()
	assert.NoError(t, err, "the token is still there")
}

func TestEnvTokenWins(t *testing.T) {
	const envTok = "fsbm_EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.token.env = mustToken(t, envTok)
	})
	assert.Equal(t, envTok, e.player.waitStart(t))
	st := e.waitFor("online", func(s state.Status) bool { return s.Online })
	assert.Equal(t, state.TokenEnv, st.Token)
	_, body := e.get("/", false)
	assert.Contains(t, body, "FS_BOT_TOKEN")
	assert.NotContains(t, body, envTok)
}

// An FS_BOT_TOKEN that is not a token at all still wins (setup is not
// offered) and is shown as rejected, never played.
func TestEnvTokenNotAToken(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.token.env, a.token.envErr = flipsight.NewToken("fsbm_EEEE EEEE")
	})
	st := e.waitFor("token rejected", func(s state.Status) bool { return s.Kind == state.KindTokenRejected })
	assert.Equal(t, state.TokenEnv, st.Token)
	assert.Contains(t, st.Detail, "FS_BOT_TOKEN is not a bot token")
	assert.Empty(t, st.PairingCode, "no setup: the environment's token wins")
	select {
	case <-e.player.started:
		t.Fatal("a token that is not one was played")
	default:
	}
	assert.NotContains(t, e.logs.String(), "EEEE")
}

func TestReadOnlyPermStillRunsWithEnvToken(t *testing.T) {
	const envTok = "fsbm_EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE"
	e := startEnv(t, func(c *Config, a *app) {
		a.fs = erofs()
		a.token.env = mustToken(t, envTok)
	})
	assert.Equal(t, envTok, e.player.waitStart(t))
	st := e.waitFor("online", func(s state.Status) bool { return s.Online })
	assert.False(t, st.Storage.OK)
	assert.Contains(t, st.Storage.Problem, "read-only")
	assert.Equal(t, state.KindOnlineIdle, st.Kind)
	_, body := e.get("/", false)
	assert.Contains(t, body, "read-only")
	assert.Contains(t, e.logs.String(), "read-only")
}

func TestReadOnlyPermWithoutTokenKeepsTokenInMemory(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) { a.fs = erofs() })
	st := e.waitFor("storage missing", func(s state.Status) bool { return s.Kind == state.KindStorageMissing && s.PairingCode != "" })
	_, body := e.get("/", false)
	assert.Contains(t, body, "read-only")
	csrf := csrfRe.FindStringSubmatch(body)[1]
	status, _, _ := e.post("/setup", url.Values{"csrf": {csrf}, "code": {st.PairingCode}, "token": {tokA}}, "", "")
	require.Equal(t, http.StatusSeeOther, status)
	assert.Equal(t, tokA, e.player.waitStart(t))
	st = e.waitFor("online", func(s state.Status) bool { return s.Online })
	assert.Equal(t, state.TokenMemory, st.Token)
	_, body = e.get("/", false)
	assert.Contains(t, body, "could not be saved")
}

func TestSettingsPage(t *testing.T) {
	e := provisioned(t)
	csrf := e.csrf("/settings", true)
	form := url.Values{
		"csrf": {csrf}, "max_matches": {"3"}, "threads": {"1"}, "hash_mb": {"32"},
		"engine_std": {"builtin"}, "engine_anti": {"off"}, "engine_grand": {"builtin"}, "engine_octagon": {"builtin"}, "engine_reversi": {"builtin"},
		"led_online": {"GPIO5"}, "led_game": {"GPIO6"}, "led_error": {"none"}, "display": {"sh1106"}, "i2c_bus": {"1"},
	}
	status, _, _ := e.post("/settings", form, "", "")
	assert.Equal(t, http.StatusUnauthorized, status)

	bad := url.Values{}
	for k, v := range form {
		bad[k] = v
	}
	bad.Set("hash_mb", "999999")
	status, body, _ := e.post("/settings", bad, web.AdminUser, testPassword)
	assert.Equal(t, http.StatusUnprocessableEntity, status)
	assert.Contains(t, body, "hash size")

	status, _, hdr := e.post("/settings", form, web.AdminUser, testPassword)
	require.Equal(t, http.StatusSeeOther, status)
	assert.Equal(t, "/settings", hdr.Get("Location"))
	// Idle: the bot restarts with the new engine settings at once.
	e.player.waitStart(t)
	s := e.player.lastSettings()
	assert.Equal(t, 3, s.MaxMatches)
	assert.Equal(t, settings.EngineOff, s.Engines["anti"])

	saved, err := settings.NewFile(e.a.cfg.Dir).Load()
	require.NoError(t, err)
	assert.Equal(t, s, saved)
	st := e.waitFor("engine shown", func(s state.Status) bool { return s.Engine.MaxMatches == 3 })
	assert.Equal(t, 32, st.Engine.HashMB)
}

func TestAPIStatus(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).setReport(bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{ID: 9, Name: "TestBot", Rating: 1600}, Matches: []bot.MatchStatus{testMatch()},
			Results: []bot.Result{{MatchID: 3, Mode: "std", Opponent: "Edax", Outcome: "win", Mine: 70, Theirs: 58}}})
	})
	e.player.waitStart(t)
	e.waitFor("in game", func(s state.Status) bool { return s.Kind == state.KindInGame })

	status, body := e.get("/api/status", false)
	require.Equal(t, http.StatusOK, status)
	var got struct {
		State   string `json:"state"`
		Online  bool   `json:"online"`
		Bot     state.BotInfo
		Matches []state.Match        `json:"matches"`
		Results []state.Result       `json:"recent_results"`
		Engine  state.EngineSettings `json:"engine"`
		Device  state.Device         `json:"device"`
		Storage state.Storage        `json:"storage"`
		Source  string               `json:"token_source"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	assert.Equal(t, "in_game", got.State)
	assert.True(t, got.Online)
	assert.Equal(t, "TestBot", got.Bot.Name)
	require.Len(t, got.Matches, 1)
	require.Len(t, got.Matches[0].Legs, 2)
	assert.Len(t, got.Matches[0].Legs[1].Board, 64)
	assert.Equal(t, [2]int64{41000, 52500}, got.Matches[0].Legs[0].ClocksMS)
	require.Len(t, got.Results, 1)
	assert.Equal(t, "win", got.Results[0].Outcome)
	assert.Equal(t, 2, got.Engine.MaxMatches)
	assert.Contains(t, got.Device.Model, "Raspberry Pi")
	assert.Equal(t, "test", got.Device.Version)
	assert.NotEmpty(t, got.Device.PageURLs)
	assert.True(t, got.Storage.OK)
	assert.NotZero(t, got.Storage.FreeBytes)
	assert.Equal(t, "stored", got.Source)
	assert.NotContains(t, body, tokA)

	// The status page draws both legs' boards with the clocks.
	_, page := e.get("/", false)
	assert.Equal(t, 2, strings.Count(page, `class="board s8"`))
	assert.Contains(t, page, "0:41.0")
	assert.Contains(t, page, "Edax")
	_, live := e.get("/live", false)
	assert.Contains(t, live, `class="board s8"`)
}

func TestTokenRejectedWhileRunning(t *testing.T) {
	e := startEnv(t, func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		a.cfg.Player.(*fakePlayer).err = fmt.Errorf("poll: %w", ErrTokenRejected)
	})
	e.player.waitStart(t)
	st := e.waitFor("token rejected", func(s state.Status) bool { return s.Kind == state.KindTokenRejected })
	assert.Contains(t, st.Detail, "rejected")
	select {
	case <-e.player.started:
		t.Fatal("a rejected token must not be retried")
	default:
	}
	_, body := e.get("/", false)
	assert.Contains(t, body, "Enter a new token")
}

func testMatch() bot.MatchStatus {
	board := make([]int, 64)
	board[27], board[28], board[35], board[36] = 2, 1, 1, 2
	return bot.MatchStatus{ID: 42, Mode: "std", Opponent: "Edax", Ranked: true, Status: "running", Legs: []bot.LegStatus{
		{Leg: 0, BoardSize: 8, Board: board, MyColor: 1, Turn: 1, MyTurn: true, Status: "active", ClocksMS: [2]int64{41000, 52500}, Discs: [2]int{2, 2}, LastMove: 28},
		{Leg: 1, BoardSize: 8, Board: board, MyColor: 2, Turn: 1, Status: "active", ClocksMS: [2]int64{50000, 58000}, Discs: [2]int{2, 2}, LastMove: -1},
	}}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestNewPairingCode(t *testing.T) {
	c, err := newPairingCode()
	require.NoError(t, err)
	assert.Regexp(t, `^[0-9]{6}$`, c)
}

func TestRedact(t *testing.T) {
	assert.Equal(t, "dial: [token] x", redact("dial: "+tokA+" x", mustToken(t, tokA)))
	assert.True(t, errors.Is(ErrTokenRejected, ErrTokenRejected))
}

// TestPairingCodeIsLoggedAgain: while setup is needed the pairing code is
// logged again at every interval, so that a flood of other lines never
// pushes it out of gokrazy's last 100; once set up, it is not.
func TestPairingCodeIsLoggedAgain(t *testing.T) {
	e := startEnv(t, func(_ *Config, a *app) { a.pairing.logEvery = 30 * time.Millisecond })
	st := e.waitFor("setup needed", func(s state.Status) bool { return s.Kind == state.KindSetupNeeded && s.PairingCode != "" })
	lines := func() int { return strings.Count(e.logs.String(), "pairing_code="+st.PairingCode) }
	require.Eventually(t, func() bool { return lines() >= 4 }, 10*time.Second, 10*time.Millisecond, "logged again")
	assert.Contains(t, e.logs.String(), "why=reminder")

	tok, err := flipsight.NewToken(tokA)
	require.NoError(t, err)
	use, err := e.a.UseToken(context.Background(), tok)
	require.NoError(t, err)
	require.Equal(t, state.TokenStored, use.Source)
	time.Sleep(60 * time.Millisecond) // a reminder in flight
	n := lines()
	time.Sleep(200 * time.Millisecond)
	assert.Equal(t, n, lines(), "not logged once set up")
}
