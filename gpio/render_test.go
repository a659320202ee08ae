package gpio

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/gpio/led"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs in testdata/")

// goldenCases returns every state on every display, plus the later pages
// of the displays that page.
func goldenCases() []struct {
	name string
	st   Status
	d    Display
	v    View
} {
	type c = struct {
		name string
		st   Status
		d    Display
		v    View
	}
	var cases []c
	for _, k := range Kinds() {
		for _, d := range Displays() {
			if d == DisplaySH1106 {
				continue // the same pixels as an SSD1306
			}
			st := SampleStatus(k)
			cols, rows := displayGrid(d)
			_, body := content(st, cols)
			for p := 0; p < pageCount(len(body), rows); p++ {
				name := fmt.Sprintf("%s-%s", k, d)
				if p > 0 {
					name += fmt.Sprintf("-p%d", p)
				}
				cases = append(cases, c{name, st, d, View{Page: p}})
			}
		}
	}
	shifted := View{}
	shifted.Shift.X, shifted.Shift.Y = 2, 1
	cases = append(cases, c{"in_game-ssd1306-shifted", SampleStatus(InGame), DisplaySSD1306, shifted})
	return cases
}

// displayGrid returns the text grid of a display.
func displayGrid(d Display) (cols, rows int) {
	switch d {
	case DisplayLCD1602:
		return 16, 2
	case DisplayLCD2004:
		return 20, 4
	case DisplaySSD130632:
		return OLEDColumns(126), 2
	}
	return OLEDColumns(126), 4
}

func TestGoldenPreviews(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			// Scale 1: the display's own pixels (or character cells), small
			// and quick to compare.
			img, err := previewImage(tc.st, tc.d, tc.v, 1, 1)
			require.NoError(t, err)
			var buf bytes.Buffer
			require.NoError(t, png.Encode(&buf, img))
			path := filepath.Join("testdata", tc.name+".png")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./gpio -run Golden -update to create it")
			// Compare pixels, not bytes: the PNG encoder may change.
			w, g := rgba(decode(t, want)), rgba(img)
			require.Equal(t, w.Bounds(), g.Bounds(), "%s: size differs", path)
			if !bytes.Equal(w.Pix, g.Pix) {
				t.Fatalf("%s differs from the golden file (rerun with -update if intended, and look at it)", path)
			}
		})
	}
}

func rgba(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok {
		return r
	}
	r := image.NewRGBA(img.Bounds())
	draw.Draw(r, r.Bounds(), img, r.Bounds().Min, draw.Src)
	return r
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

func TestPreviewUnknownDisplay(t *testing.T) {
	assert.Error(t, Preview(&bytes.Buffer{}, Status{}, DisplayAuto, View{}))
}

func TestRenderOLEDPixels(t *testing.T) {
	st := Status{Kind: OnlineIdle, BotName: "bot"}
	img := RenderOLED(st, image.Pt(128, 64), View{})
	assert.Equal(t, uint8(255), img.GrayAt(0, 0).Y, "the title bar is lit at its corner")
	assert.Equal(t, uint8(0), img.GrayAt(127, 0).Y, "the title bar leaves the last columns for the shift")
	assert.Equal(t, uint8(0), img.GrayAt(127, 63).Y)

	v := View{}
	v.Shift.X, v.Shift.Y = 2, 1
	shifted := RenderOLED(st, image.Pt(128, 64), v)
	assert.Equal(t, uint8(0), shifted.GrayAt(1, 1).Y, "shifted right by 2")
	assert.Equal(t, uint8(255), shifted.GrayAt(2, 1).Y)
	assert.Equal(t, uint8(0), shifted.GrayAt(2, 0).Y, "shifted down by 1")
	assert.Equal(t, uint8(255), shifted.GrayAt(127, 1).Y)
}

func TestTextLines(t *testing.T) {
	ingame := SampleStatus(InGame)
	tests := []struct {
		name       string
		st         Status
		cols, rows int
		page       int
		want       []string
	}{
		{"setup 20x4", SampleStatus(SetupNeeded), 20, 4, 0,
			[]string{"\x04Setup needed", "code 480917", "192.168.1.23:8080", "open in a browser"}},
		{"setup 16x2 page 0", SampleStatus(SetupNeeded), 16, 2, 0,
			[]string{"\x04Setup needed", "code 480917"}},
		{"setup 16x2 page 1", SampleStatus(SetupNeeded), 16, 2, 1,
			[]string{"\x04Setup needed", "192.168.1.23"}},
		{"setup 16x2 page 2", SampleStatus(SetupNeeded), 16, 2, 2,
			[]string{"\x04Setup needed", ":8080"}},
		{"setup 16x2 page 4 wraps", SampleStatus(SetupNeeded), 16, 2, 4,
			[]string{"\x04Setup needed", "code 480917"}},
		{"idle 20x4", SampleStatus(OnlineIdle), 20, 4, 0,
			[]string{"\x02flipbot-pi", "rating 1532", "waiting for match", "\x05192.168.1.23"}},
		{"ingame 20x4", ingame, 20, 4, 0,
			[]string{"vs edax-lv5      std", "1 \x0634 \x0721 \x000:41\x01", "2 \x0618 \x0729 \x000:52", "total 52-50"}},
		{"ingame 16x2 page 1", ingame, 16, 2, 1,
			[]string{"vs edax-lv5  std", "2 \x0618 \x0729 \x000:52"}},
		{"one row", ingame, 16, 1, 0, []string{"vs edax-lv5  std"}},
		{"finished leg and long clock", Status{Kind: InGame, Game: Game{Opponent: "someone-with-a-long-name", Legs: []Leg{
			{Mine: 40, Theirs: 24, Finished: true}, {Mine: 100, Theirs: 0, MyClock: 2 * time.Hour}}}}, 18, 4, 0,
			[]string{"vs someone-with-a-", "1 \x0640 \x0724 end", "2 \x06100 \x07 0 \x0099:59", "total 140-24"}},
		{"human match one leg", Status{Kind: InGame, Game: Game{Opponent: "taro", Mode: "std", Legs: []Leg{{Mine: 2, Theirs: 3, MyClock: -time.Second, MyTurn: true}}}}, 20, 4, 0,
			[]string{"vs taro          std", "\x06 2 \x07 3 \x000:00\x01"}},
		{"no network", SampleStatus(NoNetwork), 16, 2, 0, []string{"\x03No network", "no address"}},
		{"non-ASCII name", Status{Kind: OnlineIdle, BotName: "オセロ bot\\~"}, 16, 2, 0, []string{"\x02??? bot/-", "waiting for matc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, TextLines(tt.st, tt.cols, tt.rows, View{Page: tt.page}))
		})
	}
}

// TestEveryStateHasAScreen: every state gives non-empty lines that fit
// each display, and the states differ from each other.
func TestEveryStateHasAScreen(t *testing.T) {
	for _, d := range Displays() {
		cols, rows := displayGrid(d)
		seen := map[string]Kind{}
		for _, k := range Kinds() {
			lines := TextLines(SampleStatus(k), cols, rows, View{})
			require.NotEmpty(t, lines, "%v on %v", k, d)
			require.LessOrEqual(t, len(lines), rows)
			for _, l := range lines {
				assert.LessOrEqual(t, len(l), cols, "%v on %v: %q", k, d, l)
			}
			key := strings.Join(lines, "|")
			if other, dup := seen[key]; dup {
				t.Errorf("%v and %v look the same on %v: %q", k, other, d, key)
			}
			seen[key] = k
		}
	}
}

func TestLEDPatternsDistinguishStates(t *testing.T) {
	seen := map[[3]led.Pattern]Kind{}
	seenACT := map[led.Pattern][]Kind{}
	for _, k := range Kinds() {
		g, y, r := LEDPatterns(Status{Kind: k})
		key := [3]led.Pattern{g, y, r}
		assert.NotEqual(t, [3]led.Pattern{}, key, "%v: some LED must show something", k)
		if other, dup := seen[key]; dup && !(k == WaitingClock && other == Starting) {
			t.Errorf("%v and %v have the same LEDs %v", k, other, key)
		}
		seen[key] = k
		a := ACTPattern(Status{Kind: k})
		assert.NotEqual(t, led.Off, a, "%v: ACT must show something", k)
		seenACT[a] = append(seenACT[a], k)
	}
	assert.Equal(t, []Kind{OnlineIdle}, seenACT[led.On])
	assert.Equal(t, []Kind{InGame}, seenACT[led.Heartbeat])
	assert.Equal(t, []Kind{SetupNeeded}, seenACT[led.DoubleBlink])
	g, _, r := LEDPatterns(Status{Kind: Kind(42)})
	assert.Equal(t, led.Off, g)
	assert.Equal(t, led.FastBlink, r, "an unknown state shows as an error")
}

func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		assert.NotContains(t, k.String(), "kind(", "%d has a name", int(k))
		assert.NotEqual(t, k.String(), k.Text(), "%s has a text of its own", k)
		seen[k.String()] = true
		got, err := ParseKind(k.String())
		require.NoError(t, err)
		assert.Equal(t, k, got)
	}
	assert.Len(t, seen, len(Kinds()), "each its own name")
	_, err := ParseKind("sleeping")
	assert.Error(t, err)
	assert.Equal(t, "kind(42)", Kind(42).String())
}

func FuzzTextLines(f *testing.F) {
	f.Add("edax", "std", "480917", "http://192.168.1.23:8080/", "10.0.0.1", "HTTP 401", 34, 21, int64(41e9), 3)
	f.Add("オセロ", "", "", "::::", "", "\x00\x7f", -1, 1000, int64(-5), 0)
	f.Fuzz(func(t *testing.T, name, mode, code, url, addr, detail string, mine, theirs int, clock int64, kind int) {
		st := Status{
			Kind: Kind(kind), Address: addr, PairingCode: code, SetupURL: url, BotName: name, Detail: detail,
			Game: Game{Opponent: name, Mode: mode, Legs: []Leg{{Mine: mine, Theirs: theirs, MyClock: time.Duration(clock)}, {}}},
		}
		for _, g := range [][2]int{{16, 2}, {20, 4}, {18, 4}, {18, 2}} {
			for page := 0; page < 3; page++ {
				lines := TextLines(st, g[0], g[1], View{Page: page})
				if len(lines) == 0 || len(lines) > g[1] {
					t.Fatalf("%d lines on %v", len(lines), g)
				}
				for _, l := range lines {
					if len(l) > g[0] {
						t.Fatalf("line %q longer than %d", l, g[0])
					}
					for i := 0; i < len(l); i++ {
						if c := l[i]; c >= 0x7F || (c >= 8 && c < 0x20) {
							t.Fatalf("line %q has byte %#x", l, c)
						}
					}
				}
			}
		}
		RenderOLED(st, image.Pt(128, 32), View{Page: 1})
	})
}

// TestSamplePairingCodeIsRealFormat: the preview's pairing codes look like
// the ones the appliance makes (appliance.newPairingCode: six decimal
// digits, no separator), so a preview shows what a user will see.
func TestSamplePairingCodeIsRealFormat(t *testing.T) {
	for _, k := range Kinds() {
		code := SampleStatus(k).PairingCode
		if code == "" {
			continue
		}
		assert.Regexp(t, `^[0-9]{6}$`, code, "%s", k)
	}
}
