package appliance

import (
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"log/slog"
	"os"
	"path/filepath"
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
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/internal/testutil/browser"
)

// phoneWidth is a phone's screen in CSS pixels (an iPhone 12 to 15's).
const phoneWidth = 390

// longName is as long as a FlipSight bot name may be (24 characters), in
// one word: the pages must wrap it, not widen.
const longName = "Opponent_WithAVeryLongNm"

// phoneBrowser opens a headless Chromium phoneWidth wide, sending the
// admin password with every request.
func phoneBrowser(t *testing.T, bin string) *browser.Browser {
	t.Helper()
	b, err := browser.Start(bin, t.TempDir(), phoneWidth, 1600)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	auth := base64.StdEncoding.EncodeToString([]byte(web.AdminUser + ":" + testPassword))
	require.NoError(t, b.Call("Network.enable", nil, nil))
	require.NoError(t, b.Call("Network.setExtraHTTPHeaders", map[string]any{"headers": map[string]string{"Authorization": "Basic " + auth}}, nil))
	return b
}

// checkPhonePage opens url and checks that the page scrolls no wider than
// the screen, and that no element but a scrolling one's content sticks
// out of it; it keeps the screenshot as phone-NAME.png and returns it.
func checkPhonePage(t *testing.T, b *browser.Browser, url, name string) image.Image {
	t.Helper()
	require.NoError(t, b.Navigate(url))
	var width int
	require.NoError(t, b.Eval(`document.documentElement.scrollWidth`, &width))
	assert.LessOrEqual(t, width, phoneWidth, "%s: the page scrolls sideways at %d px", name, phoneWidth)
	t.Logf("%s: scrollWidth %d at %d px", name, width, phoneWidth)
	// What sticks out, for the failure message.
	var wide []string
	require.NoError(t, b.Eval(`Array.from(document.querySelectorAll("body *")).filter(function(e){`+
		`var r=e.getBoundingClientRect();if(r.right<=`+itoa(phoneWidth)+`+0.5)return false;`+
		`for(var p=e.parentElement;p;p=p.parentElement){var o=getComputedStyle(p).overflowX;if(o==="auto"||o==="scroll"||o==="hidden")return false;}`+
		`return true;}).slice(0,8).map(function(e){return e.tagName+"."+e.className+" "+Math.round(e.getBoundingClientRect().right);})`, &wide))
	assert.Empty(t, wide, "%s: elements past the right edge", name)
	img, png, err := b.Screenshot()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(screenshotDir(t), "phone-"+name+".png"), png, 0o644))
	return img
}

// boardsDrawn checks that every board of the page (selector) lies within
// the screen and shows the board's green, with its coordinates when it
// has them (the SVG boards).
func boardsDrawn(t *testing.T, b *browser.Browser, img image.Image, selector string, want int) {
	t.Helper()
	var boards []browser.Rect
	require.NoError(t, b.Eval(`Array.from(document.querySelectorAll(`+quote(selector)+`)).map(function(e){var r=e.getBoundingClientRect();return {X:r.x,Y:r.y,Width:r.width,Height:r.height};})`, &boards))
	require.Len(t, boards, want, selector)
	green := color.RGBA{0x2e, 0x8b, 0x57, 255}
	for i, r := range boards {
		assert.LessOrEqual(t, r.X+r.Width, float64(phoneWidth), "board %d within the screen", i)
		assert.Greater(t, r.Width, 150.0, "board %d not squeezed away", i)
		if r.Y+r.Height > float64(img.Bounds().Dy()) {
			continue // below the screenshot
		}
		seen := 0
		for y := r.Y + 4; y < r.Y+r.Height-4; y += r.Height / 12 {
			for x := r.X + 4; x < r.X+r.Width-4; x += r.Width / 12 {
				if nearColor(img.At(int(x), int(y)), green) {
					seen++
				}
			}
		}
		assert.Greater(t, seen, 10, "board %d drawn in green on the screenshot", i)
	}
}

func nearColor(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) bool { x := int(a>>8) - int(w); return x >= -40 && x <= 40 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

func quote(s string) string { return `"` + s + `"` }

// TestPagesAtPhoneWidth: every page of the appliance (setup, status in a
// game, games, a replay, settings, token) at 390 px without sideways
// scrolling, with names as long as the site allows; boards drawn within
// the screen.
func TestPagesAtPhoneWidth(t *testing.T) {
	bin := chromiumPath(t)
	if testing.Short() && os.Getenv("FLIPBOT_BROWSER_TESTS") != "1" {
		t.Skip("browser starts take seconds; skipped with -short unless FLIPBOT_BROWSER_TESTS=1")
	}
	named := func(c *Config, a *app) { c.Hostname, a.permLabel = "flipbot", "/perm" }

	t.Run("setup", func(t *testing.T) {
		e := startEnv(t, named)
		e.waitFor("setup needed", func(s state.Status) bool { return s.PairingCode != "" })
		b := phoneBrowser(t, bin)
		checkPhonePage(t, b, e.base+"/", "setup")
	})

	oct := sampleGame(t, othello.Octagon, 2, 41, longName)
	std := sampleGame(t, othello.Std, 1, 40, longName)
	m := testMatch()
	m.Opponent = longName
	e := startEnv(t, named, withGames(t, std, oct), func(c *Config, a *app) {
		require.NoError(t, store.NewTokenFile(c.Dir).Save(mustToken(t, tokA)))
		require.NoError(t, ratings.NewFile(c.Dir).Save(pastRatings(time.Now())))
		ind := NewGPIOIndicators(slog.New(slog.DiscardHandler))
		t.Cleanup(func() { ind.Close() })
		c.Indicators = ind // the mirror of the LEDs and the display
		a.cfg.Player.(*fakePlayer).setReport(bot.Status{State: bot.StateOnline,
			Bot:     bot.BotInfo{ID: 9, Name: "PiBot_WithAVeryLongName1", Rating: 1612, RD: 70, Wins: 8, Losses: 3, Draws: 1},
			Matches: []bot.MatchStatus{m, octagonMatch()},
			Results: []bot.Result{
				{MatchID: 40, Mode: "std", Opponent: longName, Outcome: "win", Mine: 71, Theirs: 57, Reason: "discs", At: time.Date(2026, 12, 2, 9, 12, 0, 0, time.UTC)},
				{MatchID: 37, Mode: "anti", Opponent: longName, Outcome: "loss", Mine: 70, Theirs: 58, Reason: "double_timeout", At: time.Date(2026, 12, 2, 8, 55, 0, 0, time.UTC)},
			}})
	})
	e.player.waitStart(t)
	e.waitFor("in game", func(s state.Status) bool { return s.Kind == state.KindInGame })
	a, err := analysis.Game(context.Background(), search.New(search.Options{Threads: 1, HashMB: 8}), &oct, analysis.Options{Depth: 3, ExactEmpties: 8})
	require.NoError(t, err)
	require.NoError(t, e.a.cfg.Games.SaveAnalysis(a))
	b := phoneBrowser(t, bin)

	img := checkPhonePage(t, b, e.base+"/", "status")
	boardsDrawn(t, b, img, ".board", 4)
	var screen []int
	require.NoError(t, b.Eval(`(function(){var i=document.getElementById("display-img");return [i.naturalWidth,i.getBoundingClientRect().right|0,document.querySelectorAll("#mirror .led").length]})()`, &screen))
	require.Len(t, screen, 3)
	assert.Equal(t, 128*3+12, screen[0], "the display's picture loaded")
	assert.LessOrEqual(t, screen[1], 390, "and drawn within the screen")
	assert.Equal(t, 3, screen[2], "three LEDs")
	var anim []string
	require.NoError(t, b.Eval(`(function(){var l=document.querySelector("#mirror .led.p-slow-blink");var c=getComputedStyle(l);return [c.animationName,c.animationDuration,l.style.animationDelay]})()`, &anim))
	require.Len(t, anim, 3)
	assert.Equal(t, []string{"led-slow-blink", "1s"}, anim[:2], "the yellow LED blinks slowly in a game")
	assert.Regexp(t, `^-?\d+ms$`, anim[2], "in step with the clock (refresh.js)")
	checkPhonePage(t, b, e.base+"/games", "games")
	img = checkPhonePage(t, b, e.base+"/games/"+oct.ID, "replay")
	boardsDrawn(t, b, img, "#board", 1)
	var coords int
	require.NoError(t, b.Eval(`document.querySelectorAll("#board .coord").length`, &coords))
	assert.Equal(t, 20, coords, "a…j and 1…10 on the replay's board")
	checkPhonePage(t, b, e.base+"/games/"+std.ID+"?ply=5", "replay-std")
	checkPhonePage(t, b, e.base+"/settings", "settings")
	checkPhonePage(t, b, e.base+"/token", "token")
}
