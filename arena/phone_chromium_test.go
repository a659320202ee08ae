package arena

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/internal/boardview"
	"flipbot.dev/flipbot/internal/testutil/browser"
)

// phoneWidth is a phone's screen in CSS pixels.
const phoneWidth = 390

// boardOnScreen is one board of the page as the browser lays it out.
type boardOnScreen struct {
	X, Y, Width, Height float64
	Size                int
	Coords              []struct {
		T    string
		X, Y float64
	}
	Last *struct{ X, Y float64 }
}

func near(c color.Color, want color.RGBA) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) bool { x := int(a>>8) - int(w); return x >= -40 && x <= 40 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// phonePage opens url at phoneWidth and checks: no sideways scrolling;
// every board within the screen, green on the screenshot, with its files
// over their columns and ranks beside their rows, and its last move's
// mark drawn. It keeps the screenshot as arena-phone-NAME.png.
func phonePage(t *testing.T, b *browser.Browser, url, name string, boards int) []boardOnScreen {
	t.Helper()
	require.NoError(t, b.Navigate(url))
	var width int
	require.NoError(t, b.Eval(`document.documentElement.scrollWidth`, &width))
	assert.LessOrEqual(t, width, phoneWidth, "%s scrolls sideways at %d px", name, phoneWidth)
	t.Logf("%s: scrollWidth %d at %d px", name, width, phoneWidth)
	var bs []boardOnScreen
	require.NoError(t, b.Eval(`Array.from(document.querySelectorAll("svg.board-svg")).map(function(s){`+
		`var r=s.getBoundingClientRect();var m=s.querySelector(".m-last");var mr=m.getBoundingClientRect();`+
		`return {X:r.x,Y:r.y,Width:r.width,Height:r.height,Size:s.querySelectorAll(".coord").length/2,`+
		`Coords:Array.from(s.querySelectorAll(".coord")).map(function(e){var q=e.getBoundingClientRect();return {T:e.textContent,X:q.x+q.width/2,Y:q.y+q.height/2};}),`+
		`Last:m.getAttribute("visibility")==="hidden"?null:{X:mr.x+mr.width/2,Y:mr.y+mr.height/2}};})`, &bs))
	require.Len(t, bs, boards, name)
	img, png, err := b.Screenshot()
	require.NoError(t, err)
	dir := os.Getenv("FLIPBOT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "flipbot-artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "arena-phone-"+name+".png"), png, 0o644))
	for i, bd := range bs {
		assert.LessOrEqual(t, bd.X+bd.Width, float64(phoneWidth), "%s: board %d within the screen", name, i)
		require.Contains(t, []int{8, 10}, bd.Size, "%s: board %d has a…h/j and 1…8/10", name, i)
		scale := bd.Width / float64(boardview.ViewSize(bd.Size))
		for c := range bd.Size {
			file, rank := bd.Coords[c], bd.Coords[bd.Size+c]
			cx, cy := boardview.Centre(c*bd.Size+c, bd.Size)
			assert.Equal(t, boardview.File(c), file.T)
			assert.InDelta(t, bd.X+float64(cx)*scale, file.X, 3, "%s: file %s over its column", name, file.T)
			assert.Equal(t, strconv.Itoa(c+1), rank.T)
			assert.InDelta(t, bd.Y+float64(cy)*scale, rank.Y, 4, "%s: rank %s beside its row", name, rank.T)
		}
		if bd.Y+bd.Height > float64(img.Bounds().Dy()) {
			continue
		}
		assert.Greater(t, greens(img, bd), 20, "%s: board %d drawn on the screenshot", name, i)
		if bd.Last != nil {
			assert.True(t, near(img.At(int(bd.Last.X), int(bd.Last.Y)), color.RGBA{0xff, 0xcc, 0x33, 255}),
				"%s: board %d's last move marked", name, i)
		}
	}
	return bs
}

// greens counts the board-green points of a 12×12 grid over a board.
func greens(img image.Image, bd boardOnScreen) int {
	n := 0
	for y := bd.Y + 2; y < bd.Y+bd.Height; y += bd.Height / 12 {
		for x := bd.X + 2; x < bd.X+bd.Width; x += bd.Width / 12 {
			if near(img.At(int(x), int(y)), color.RGBA{0x2e, 0x8b, 0x57, 255}) {
				n++
			}
		}
	}
	return n
}

// TestPagesAtPhoneWidth: the arena's page (live boards of a std and an
// octagon match, a bot with a 24-character name, the results) and a
// finished match's replay at 390 px: no sideways scrolling, every board
// with coordinates and its last move marked.
func TestPagesAtPhoneWidth(t *testing.T) {
	bin := browser.Path()
	if bin == "" {
		t.Skip("chromium not installed (Debian: apt-get install chromium)")
	}
	if testing.Short() && os.Getenv("FLIPBOT_BROWSER_TESTS") != "1" {
		t.Skip("a browser start takes seconds; skipped with -short unless FLIPBOT_BROWSER_TESTS=1")
	}
	b, err := browser.Start(bin, t.TempDir(), phoneWidth, 2400)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })

	live := pageFixture(t)
	_, err = live.srv.AddBot(BotConfig{Name: "Builtin_WithAVeryLongNam", Builtin: true, Level: LevelRandom})
	require.NoError(t, err)
	bs := phonePage(t, b, live.ts.URL+"/", "live", 4)
	marked := 0
	for _, bd := range bs {
		if bd.Last != nil {
			marked++
		}
	}
	assert.Equal(t, 2, marked, "the std legs' last moves are marked (the octagon's have none yet)")

	done := newFixture(t, Config{})
	id := playedOut(t, done)
	phonePage(t, b, done.ts.URL+"/", "results", 0)
	phonePage(t, b, fmt.Sprintf("%s/arena/matches/%d", done.ts.URL, id), "replay", 1)
	phonePage(t, b, fmt.Sprintf("%s/arena/matches/%d?leg=1&ply=7", done.ts.URL, id), "replay-ply7", 1)
	// The keys step through the moves.
	require.NoError(t, b.Key("ArrowLeft"))
	require.NoError(t, b.Eval(`new Promise(function(r){var n=0;(function w(){if(location.search.indexOf("ply=6")>=0||++n>100){r(true);}else{setTimeout(w,50);}})();})`, nil))
	var ply string
	require.NoError(t, b.Eval(`document.getElementById("board").getAttribute("data-ply")`, &ply))
	assert.Equal(t, "6", ply, "← went back a move")
}
