package web

import (
	"fmt"
	"image"
	"image/color"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/testutil/browser"
)

// The replay page in a real browser (Debian's chromium, headless, driven
// over the DevTools protocol): the screenshots are checked where the page
// says its parts are (the board's discs, blocked squares and marks, the
// move list's current move, the graph's line, marks and cursor), and the
// keys and clicks step through the game. The screenshots are kept in
// $FLIPBOT_SCREENSHOTS (default: a directory under the system temp dir);
// the README's are made with
//
//	FLIPBOT_SCREENSHOTS=$PWD/appliance/docs go test -run InChromium ./appliance/web

// The colours of style.css the checks look for.
var (
	colBoard   = color.RGBA{0x2e, 0x8b, 0x57, 255}
	colBlack   = color.RGBA{0x11, 0x11, 0x11, 255}
	colWhite   = color.RGBA{0xf7, 0xf7, 0xf7, 255}
	colBlocked = color.RGBA{0xc9, 0xcd, 0xc6, 255}
	colBest    = color.RGBA{0x39, 0xa0, 0xff, 255}
	colCurrent = color.RGBA{0xff, 0xe9, 0xa8, 255}
	colLine    = color.RGBA{0x1d, 0x23, 0x20, 255}
	colClass   = map[string]color.RGBA{
		"":                     {0xff, 0xcc, 0x33, 255},
		record.ClassBest:       {0x37, 0xc8, 0x71, 255},
		record.ClassInaccuracy: {0xf2, 0xc2, 0x00, 255},
		record.ClassMistake:    {0xf0, 0x7d, 0x00, 255},
		record.ClassBlunder:    {0xe0, 0x24, 0x1b, 255},
	}
)

func browserOrSkip(t *testing.T) string {
	bin := browser.Path()
	if bin == "" {
		t.Skip("chromium not installed: the page tests need Debian's chromium (apt-get install -y chromium)")
	}
	if testing.Short() && os.Getenv("FLIPBOT_BROWSER_TESTS") != "1" {
		t.Skip("a browser start takes seconds; skipped with -short unless FLIPBOT_BROWSER_TESTS=1")
	}
	return bin
}

func screenshotDir(t *testing.T) string {
	dir := os.Getenv("FLIPBOT_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "flipbot-appliance-screenshots")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// near reports whether c is within tol of want in every channel.
func near(c color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := c.RGBA()
	d := func(a uint32, w uint8) bool { x := int(a>>8) - int(w); return x >= -tol && x <= tol }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// around reports whether a pixel within r of (x, y) is near want.
func around(img image.Image, x, y float64, r int, want color.RGBA) bool {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if near(img.At(int(x)+dx, int(y)+dy), want, 40) {
				return true
			}
		}
	}
	return false
}

// replayBrowser is the page in the browser with what the checks need.
type replayBrowser struct {
	t     *testing.T
	b     *browser.Browser
	data  replayData
	board browser.Rect // the board's SVG on the screen
	graph browser.Rect
	scale float64 // screen pixels per board unit
}

func openReplay(t *testing.T, bin, url string, width, height int) *replayBrowser {
	b, err := browser.Start(bin, t.TempDir(), width, height)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	require.NoError(t, b.Navigate(url))
	rb := &replayBrowser{t: t, b: b}
	var raw string
	require.NoError(t, b.Eval(`document.getElementById("replay-data").textContent`, &raw))
	rb.data = replayJSON(t, `<script type="application/json" id="replay-data">`+raw+`</script>`)
	rb.board, err = b.Rect("#board")
	require.NoError(t, err)
	rb.graph, err = b.Rect("#graph")
	require.NoError(t, err)
	rb.scale = rb.board.Width / float64(2*margin+rb.data.Size*cell)
	return rb
}

// ply returns the position the page shows.
func (rb *replayBrowser) ply() int {
	var s string
	require.NoError(rb.t, rb.b.Eval(`document.getElementById("board").getAttribute("data-ply")`, &s))
	n, err := strconv.Atoi(s)
	require.NoError(rb.t, err)
	return n
}

// square returns the screen centre of a square.
func (rb *replayBrowser) square(sq int) (float64, float64) {
	cx, cy := squareCentre(sq, rb.data.Size)
	return rb.board.X + float64(cx)*rb.scale, rb.board.Y + float64(cy)*rb.scale
}

// graphPoint returns the screen point of graph units (x, y).
func (rb *replayBrowser) graphPoint(x, y int) (float64, float64) {
	s := rb.graph.Width / graphW
	return rb.graph.X + float64(x)*s, rb.graph.Y + float64(y)*s
}

// checkShown checks that the page, and its screenshot, show position ply:
// every disc in its colour (and the blocked squares grey), the last move's
// mark in its class's colour, the best move's ring where the analysis has
// one, the panel, the move list's current move and the graph's cursor.
func (rb *replayBrowser) checkShown(ply int, shot string) {
	t := rb.t
	require.Equal(t, ply, rb.ply())
	img, png, err := rb.b.Screenshot()
	require.NoError(t, err)
	if shot != "" {
		require.NoError(t, os.WriteFile(filepath.Join(screenshotDir(t), shot), png, 0o644))
	}
	p := rb.data.Plies[ply]
	mode := othello.Std
	if rb.data.Size == 10 {
		mode = othello.Octagon
	}
	blocked := mode.Blocked()
	wrong := 0
	for sq := range len(p.Board) {
		x, y := rb.square(sq)
		if sq == p.Last {
			continue // the mark covers the centre
		}
		var want color.RGBA
		switch {
		case blocked.Has(sq):
			want, x = colBlocked, x+12*rb.scale // off the cross
		case p.Board[sq] == '1':
			want = colBlack
		case p.Board[sq] == '2':
			want = colWhite
		default:
			want, y = colBoard, y+9*rb.scale // off the best move's ring
		}
		if !near(img.At(int(x), int(y)), want, 40) {
			wrong++
			t.Errorf("ply %d square %s: %v on the screenshot, want %v", ply, othello.SquareName(sq, rb.data.Size), img.At(int(x), int(y)), want)
		}
	}
	require.Zero(t, wrong)
	if p.Last >= 0 {
		x, y := rb.square(p.Last)
		assert.True(t, around(img, x, y, 1, colClass[p.Class]), "ply %d: the last move %s marked in %s's colour", ply,
			othello.SquareName(p.Last, rb.data.Size), p.Class)
	}
	if p.Best >= 0 {
		x, y := rb.square(p.Best)
		assert.True(t, around(img, x+17*rb.scale, y, 2, colBest) || around(img, x-17*rb.scale, y, 2, colBest) ||
			around(img, x, y+17*rb.scale, 2, colBest) || around(img, x, y-17*rb.scale, 2, colBest),
			"ply %d: the best move %s ringed", ply, othello.SquareName(p.Best, rb.data.Size))
	}
	var panel bool
	require.NoError(t, rb.b.Eval(fmt.Sprintf(`!document.querySelector('.ply-info[data-ply="%d"]').hidden && `+
		`document.querySelectorAll('.ply-info:not([hidden])').length === 1`, ply), &panel))
	assert.True(t, panel, "ply %d: its panel alone shown", ply)
	if ply > 0 {
		r, err := rb.b.Rect(fmt.Sprintf(`#moves a[data-ply="%d"]`, ply))
		require.NoError(t, err)
		assert.True(t, around(img, r.X+2, r.Y+r.Height/2, 2, colCurrent), "ply %d: the current move highlighted in the list", ply)
		var cur int
		require.NoError(t, rb.b.Eval(`document.querySelectorAll("#moves a.cur").length`, &cur))
		assert.Equal(t, 1, cur)
	}
	var curX string
	require.NoError(t, rb.b.Eval(`document.getElementById("g-cur").getAttribute("x1")`, &curX))
	assert.Equal(t, strconv.Itoa(p.X), curX, "ply %d: the graph's cursor at its x", ply)
	if rb.graph.Width >= graphW {
		x, y := rb.graphPoint(p.X, (graphTop+graphH-graphBot)/2+20)
		assert.True(t, around(img, x, y, 2, colBest), "ply %d: the graph's cursor drawn at its x", ply)
	}
	var search string
	require.NoError(t, rb.b.Eval(`location.search`, &search))
	if search != "" {
		assert.Equal(t, "?ply="+strconv.Itoa(ply), search)
	}
}

func TestReplayInChromium(t *testing.T) {
	bin := browserOrSkip(t)
	oct := sampleGame(t, othello.Octagon, 2, 41, "Tenten")
	h, a := analysedHandler(t, oct)
	srv := httptest.NewServer(h)
	defer srv.Close()
	n := len(oct.Moves)
	// The first position after a mistake or blunder: the best move is
	// ringed there.
	bad := 0
	for i, m := range a.Moves {
		if c := record.LossClass(m.Loss); m.Move != othello.Pass && m.Move != m.Best && (c == record.ClassMistake || c == record.ClassBlunder) {
			bad = i + 1
			break
		}
	}
	require.Positive(t, bad, "the random game has a mistake")

	rb := openReplay(t, bin, srv.URL+"/games/"+oct.ID+"?ply="+strconv.Itoa(bad), 1100, 1200)
	t.Run("layout", func(t *testing.T) {
		rb.t = t
		rb.checkShown(bad, "replay.png")
		moves, err := rb.b.Rect("#moves")
		require.NoError(t, err)
		assert.Greater(t, moves.X, rb.board.X+rb.board.Width-1, "the move list beside the board")
		assert.Greater(t, rb.graph.Y, rb.board.Y+rb.board.Height-1, "the graph under the board")
		assert.GreaterOrEqual(t, rb.board.Width, 440.0, "a large board")
		// The coordinates: a…j above the squares, 1…10 left of them.
		var coords []struct {
			T    string
			X, Y float64
		}
		require.NoError(t, rb.b.Eval(`Array.from(document.querySelectorAll("#board .coord")).map(function(e){var r=e.getBoundingClientRect();return {T:e.textContent,X:r.x+r.width/2,Y:r.y+r.height/2};})`, &coords))
		require.Len(t, coords, 20)
		for i, c := range coords[:10] {
			x, y := rb.square(i)
			assert.Equal(t, string(rune('a'+i)), c.T)
			assert.InDelta(t, x, c.X, 3, "file %s over its column", c.T)
			assert.Less(t, c.Y, y-20*rb.scale)
		}
		for i, c := range coords[10:] {
			x, y := rb.square(i * 10)
			assert.Equal(t, strconv.Itoa(i+1), c.T)
			assert.InDelta(t, y, c.Y, 4, "rank %s beside its row", c.T)
			assert.Less(t, c.X, x-20*rb.scale)
		}
		// The graph: its line through the points, its marks where the
		// analysis has mistakes and blunders.
		img, _, err := rb.b.Screenshot()
		require.NoError(t, err)
		gr := scoreGraph(oct, &a, n+1, 100)
		require.NotEmpty(t, gr.Marks)
		for _, m := range gr.Marks {
			x, y := rb.graphPoint(m.X, m.Y)
			assert.True(t, around(img, x, y, 1, colClass[m.Class]), "the %s of move %d marked at its point", m.Class, m.Ply)
		}
		// Every point of the line not under a mark or a vertical line.
		covered := map[int]bool{bad: true}
		for _, m := range gr.Marks {
			covered[m.Ply] = true
		}
		for _, m := range gr.Turns {
			covered[m.Ply] = true
		}
		curve := a.Curve()
		points, seen := 0, 0
		for i := range curve {
			if covered[i] || covered[i-1] || covered[i+1] {
				continue
			}
			points++
			x, y := rb.graphPoint(gr.x(i), gr.y(curve[i]))
			if around(img, x, y, 2, colLine) {
				seen++
			} else {
				t.Logf("position %d: no line at (%.0f, %.0f)", i, x, y)
			}
		}
		assert.Positive(t, points)
		assert.Equal(t, points, seen, "the line passes through the positions' values")
	})

	t.Run("keys", func(t *testing.T) {
		rb.t = t
		require.NoError(t, rb.b.Key("Home"))
		rb.checkShown(0, "")
		for i := 1; i <= 3; i++ {
			require.NoError(t, rb.b.Key("ArrowRight"))
			rb.checkShown(i, "")
		}
		require.NoError(t, rb.b.Key("ArrowLeft"))
		rb.checkShown(2, "")
		require.NoError(t, rb.b.Key("End"))
		rb.checkShown(n, "")
		require.NoError(t, rb.b.Key("ArrowRight"))
		assert.Equal(t, n, rb.ply(), "no step past the end")
		require.NoError(t, rb.b.Key("Home"))
		require.NoError(t, rb.b.Key("ArrowLeft"))
		assert.Equal(t, 0, rb.ply(), "no step before the start")
	})

	t.Run("clicks", func(t *testing.T) {
		rb.t = t
		require.NoError(t, rb.b.Key("End")) // the list scrolled to its end
		require.NoError(t, rb.b.Eval(`document.querySelector('#moves a[data-ply="7"]').scrollIntoView({block:"center"})`, nil))
		r, err := rb.b.Rect(`#moves a[data-ply="7"]`)
		require.NoError(t, err)
		require.NoError(t, rb.b.Click(r.Center()))
		rb.checkShown(7, "")
		x, y := rb.graphPoint(scoreGraph(oct, &a, n+1, 100).x(20), graphTop+30)
		require.NoError(t, rb.b.Click(x, y))
		rb.checkShown(20, "")
		r, err = rb.b.Rect(`[data-step="next"]`)
		require.NoError(t, err)
		require.NoError(t, rb.b.Click(r.Center()))
		rb.checkShown(21, "")
	})

	t.Run("phone", func(t *testing.T) {
		ph := openReplay(t, bin, srv.URL+"/games/"+oct.ID+"?ply="+strconv.Itoa(bad), 390, 1600)
		ph.checkShown(bad, "replay-phone.png")
		moves, err := ph.b.Rect("#moves")
		require.NoError(t, err)
		assert.LessOrEqual(t, ph.board.X+ph.board.Width, 390.0, "the board fits the phone's width")
		assert.LessOrEqual(t, ph.graph.X+ph.graph.Width, 390.0, "so does the graph")
		assert.Greater(t, moves.Y, ph.graph.Y, "the move list under the graph")
	})
}
