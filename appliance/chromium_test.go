package appliance

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// The pages in a real browser: Debian's chromium, headless. Screenshots are
// kept as artifacts in $FLIPBOT_SCREENSHOTS (default: a directory under
// the system temp dir, logged); the README's pictures are made with
//
//	FLIPBOT_SCREENSHOTS=$PWD/appliance/docs go test -run 'TestPagesInChromium|TestGamesPagesInChromium' ./appliance
//
// Under -short only the first-boot page is shot (each browser start takes
// a few seconds).

func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium not installed: the page tests need Debian's chromium (apt-get install -y chromium)")
	return ""
}

func screenshotDir(t *testing.T) string {
	dir := os.Getenv("FLIPBOT_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "flipbot-appliance-screenshots")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// runChromium runs a headless chromium on url with extra arguments and
// returns its stdout.
func runChromium(t *testing.T, bin, u string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-zygote",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir(),
	}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), u)...)
	// No session bus in a container: without this chromium waits for one.
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=/dev/null")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", u, err, stderr.String())
	}
	return stdout.Bytes()
}

// shoot saves a screenshot of u as name, checks it is a real picture, and
// returns the DOM after the page's scripts ran.
func shoot(t *testing.T, bin, u, name string, width, height int) string {
	t.Helper()
	file := filepath.Join(screenshotDir(t), name)
	// One browser start does both: the screenshot and the DOM after the
	// scripts ran (virtual time lets refresh.js run once).
	dom := runChromium(t, bin, u, "--screenshot="+file, "--dump-dom", "--virtual-time-budget=2500",
		"--window-size="+itoa(width)+","+itoa(height))
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err, "screenshot is a PNG")
	assert.Equal(t, image.Rect(0, 0, width, height), img.Bounds())
	assert.Greater(t, distinctColors(img), 8, "the screenshot is not blank")
	t.Logf("screenshot: %s", file)
	return string(dom)
}

func distinctColors(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r >> 8, g >> 8, bl >> 8, a >> 8}] = true
		}
	}
	return len(seen)
}

func itoa(n int) string { return strconv.Itoa(n) }

// withAuth puts the admin credentials into a page URL (chromium sends them
// as HTTP Basic for a top-level navigation).
func withAuth(base, path string) string {
	u, _ := url.Parse(base + path)
	u.User = url.UserPassword(web.AdminUser, testPassword)
	return u.String()
}

// countingLive counts in n the requests for /live (the status page's
// refresh) that reach next.
func countingLive(next http.Handler, n *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/live" {
			n.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

func TestPagesInChromium(t *testing.T) {
	bin := chromiumPath(t)
	named := func(c *Config, a *app) { c.Hostname, a.permLabel = "flipbot", "/perm" }

	t.Run("first boot: setup page", func(t *testing.T) {
		e := startEnv(t, named)
		code := e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" }).PairingCode
		dom := shoot(t, bin, e.base+"/", "setup.png", 1000, 1100)
		assert.Contains(t, dom, "Set up your bot")
		assert.Contains(t, dom, `name="code"`)
		assert.Contains(t, dom, `type="password"`)
		assert.NotContains(t, dom, code)
	})
	if testing.Short() {
		t.Log("-short: the other pages are shot without -short")
		return
	}

	t.Run("status page in a game", func(t *testing.T) {
		var live atomic.Int64 // the status page's refreshes
		e := startEnv(t, named, func(c *Config, a *app) {
			a.pages = countingLive(a.pages, &live)
			require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
			require.NoError(t, ratings.NewFile(c.Dir).Save(pastRatings(time.Now())))
			a.cfg.Player.(*fakePlayer).setReport(bot.Status{State: bot.StateOnline,
				Bot:     bot.BotInfo{ID: 9, Name: "PiBot", Rating: 1612, RD: 70, Wins: 8, Losses: 3, Draws: 1},
				Matches: []bot.MatchStatus{testMatch(), octagonMatch()},
				Results: []bot.Result{
					{MatchID: 40, Mode: "std", Opponent: "Edax", Outcome: "win", Mine: 71, Theirs: 57, Reason: "discs", At: time.Date(2026, 12, 2, 9, 12, 0, 0, time.UTC)},
					{MatchID: 37, Mode: "anti", Opponent: "Zebra", Outcome: "loss", Mine: 70, Theirs: 58, Reason: "discs", At: time.Date(2026, 12, 2, 8, 55, 0, 0, time.UTC)},
				}})
		})
		e.player.waitStart(t)
		e.waitFor("in game", func(s state.Status) bool { return s.Kind == state.KindInGame })
		dom := shoot(t, bin, e.base+"/", "status.png", 1000, 2300)
		assert.Contains(t, dom, `<svg id="rating-graph"`, "the rating over time")
		assert.Equal(t, 4, strings.Count(dom, `class="board s`), "both legs of both matches are drawn (after the refresh too)")
		assert.Contains(t, dom, "PiBot")
		assert.Contains(t, dom, "In game")
		assert.NotContains(t, dom, tokA)
		assert.Positive(t, live.Load(), "refresh.js fetched /live (scripts allowed by the CSP)")
	})

	t.Run("token page", func(t *testing.T) {
		e := provisioned(t, named)
		dom := shoot(t, bin, withAuth(e.base, "/token"), "token.png", 1000, 800)
		assert.Contains(t, dom, "Check and save")
		assert.NotContains(t, dom, tokA)
	})

	t.Run("settings page", func(t *testing.T) {
		e := provisioned(t, named)
		dom := shoot(t, bin, withAuth(e.base, "/settings"), "settings.png", 1000, 1000)
		assert.Contains(t, dom, `name="max_matches"`)
		assert.Contains(t, dom, "GPIO17")
	})

	t.Run("storage missing", func(t *testing.T) {
		e := startEnv(t, named, func(c *Config, a *app) { a.fs = erofs() })
		e.waitFor("storage missing", func(s state.Status) bool { return s.Kind == state.KindStorageMissing })
		dom := shoot(t, bin, e.base+"/", "storage-missing.png", 1000, 1100)
		assert.Contains(t, dom, "read-only")
	})
}

func TestGamesPagesInChromium(t *testing.T) {
	bin := chromiumPath(t)
	if testing.Short() {
		t.Skip("-short: the games pages are shot without -short")
	}
	named := func(c *Config, a *app) { c.Hostname, a.permLabel = "flipbot", "/perm" }
	oct := sampleGame(t, othello.Octagon, 2, 41, "Tenten")
	std := sampleGame(t, othello.Std, 1, 40, "Edax")
	std2 := sampleGame(t, othello.Std, 3, 42, "Edax")
	anti := sampleGame(t, othello.Anti, 4, 43, "Zebra")
	e := provisioned(t, named, withGames(t, std, oct, std2, anti))
	eng := search.New(search.Options{Threads: 1, HashMB: 8})
	for _, g := range []record.Game{oct, std2, anti} {
		a, err := analysis.Game(context.Background(), eng, &g, analysis.Options{Depth: 4, ExactEmpties: 10})
		require.NoError(t, err)
		require.NoError(t, e.a.cfg.Games.SaveAnalysis(a))
	}
	dom := shoot(t, bin, e.base+"/games", "games.png", 1100, 900)
	assert.Contains(t, dom, "Tenten")
	assert.Contains(t, dom, `id="tallies"`)
	assert.Contains(t, dom, "3 of 4 analysed")
	assert.Contains(t, dom, "/games/"+std.ID)
	// The replay in full (keys, clicks, the analysis, the graph) is
	// appliance/web's TestReplayInChromium; here, that it is served by the
	// appliance and its script runs under the CSP.
	dom = shoot(t, bin, e.base+"/games/"+oct.ID+"?ply=3", "replay-not-analysed.png", 1000, 1000)
	assert.Contains(t, dom, `data-ply="3" data-last="`+itoa(len(oct.Moves))+`"`)
	assert.Contains(t, dom, `class="js"`, "replay.js ran (scripts allowed by the CSP)")
	assert.Equal(t, len(oct.Moves), strings.Count(dom, `hidden=""`), "all panels but one hidden")
}

// pastRatings is a rating history of a week of results before now, ending
// below the 1612 the status test's bot reports.
func pastRatings(now time.Time) ratings.History {
	var h ratings.History
	s := ratings.Sample{At: now.Add(-7 * 24 * time.Hour), Rating: 1500, RD: 350}
	h.Add(9, s)
	for i, r := range []string{"win", "win", "loss", "win", "draw", "win", "loss", "win", "win", "loss", "win"} {
		s.At = s.At.Add(time.Duration(10+i) * time.Hour)
		s.RD = max(70, s.RD*0.85)
		switch r {
		case "win":
			s.Wins++
			s.Rating += 22
		case "loss":
			s.Losses++
			s.Rating -= 17
		case "draw":
			s.Draws++
			s.Rating += 2
		}
		h.Add(9, s)
	}
	return h
}

func octagonMatch() bot.MatchStatus {
	board := make([]int, 100)
	blocked := []int{0, 1, 10, 8, 9, 19, 80, 90, 91, 89, 98, 99}
	for i, c := range []int{44, 45, 54, 55, 33, 46, 56, 65} {
		board[c] = 1 + i%2
	}
	return bot.MatchStatus{ID: 43, Mode: "octagon", Opponent: "Tenten", Ranked: true, Status: "running", Legs: []bot.LegStatus{
		{Leg: 0, BoardSize: 10, Board: board, Blocked: blocked, MyColor: 2, Turn: 1, Status: "active", ClocksMS: [2]int64{57000, 59000}, Discs: [2]int{4, 4}, LastMove: 46},
		{Leg: 1, BoardSize: 10, Board: board, Blocked: blocked, MyColor: 1, Turn: 1, MyTurn: true, Status: "active", ClocksMS: [2]int64{55500, 60000}, Discs: [2]int{4, 4}, LastMove: -1},
	}}
}
