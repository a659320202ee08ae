package gpio

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Icon codes: bytes 0–7 inside screen text stand for these small
// pictures. On an HD44780 LCD they are the custom characters loaded from
// Glyphs; on an OLED they are drawn from the same bitmaps.
const (
	IconClock  byte = 0 // time left
	IconTurn   byte = 1 // my move in this leg
	IconCheck  byte = 2 // online
	IconCross  byte = 3 // error
	IconLock   byte = 4 // setup needed (a padlock)
	IconNet    byte = 5 // network address
	IconMine   byte = 6 // my discs (filled disc)
	IconTheirs byte = 7 // the opponent's discs (ring)
)

// Glyphs returns the bitmaps of the eight icons, indexed by icon code:
// eight rows of five pixels, bit 4 on the left (the HD44780 CGRAM
// format).
func Glyphs() [8][8]byte {
	return [8][8]byte{
		IconClock:  {0x00, 0x0E, 0x15, 0x17, 0x11, 0x0E, 0x00, 0x00},
		IconTurn:   {0x08, 0x0C, 0x0E, 0x0F, 0x0E, 0x0C, 0x08, 0x00},
		IconCheck:  {0x00, 0x01, 0x03, 0x16, 0x1C, 0x08, 0x00, 0x00},
		IconCross:  {0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00, 0x00},
		IconLock:   {0x0E, 0x11, 0x11, 0x1F, 0x1B, 0x1B, 0x1F, 0x00},
		IconNet:    {0x00, 0x0E, 0x11, 0x04, 0x0A, 0x00, 0x04, 0x00},
		IconMine:   {0x00, 0x0E, 0x1F, 0x1F, 0x1F, 0x0E, 0x00, 0x00},
		IconTheirs: {0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00},
	}
}

// content returns the screen text of st for a display w characters wide:
// a title and body lines in order of importance. Every line is at most w
// bytes of printable ASCII or icon codes.
func content(st Status, w int) (title string, body []string) {
	addr := clean(st.Address)
	withAddr := func(lines ...string) []string {
		if addr != "" {
			lines = append(lines, string(IconNet)+addr)
		}
		return lines
	}
	switch st.Kind {
	case Starting:
		title, body = "flipbot", withAddr("starting...")
	case WaitingClock:
		title, body = "Waiting for clock", withAddr("time sync (NTP)")
	case SetupNeeded:
		title = string(IconLock) + "Setup needed"
		body = setupLines(st, w)
	case Connecting:
		title = "Connecting..."
		body = withAddr(nameLine(st))
	case OnlineIdle:
		title = string(IconCheck) + nameOr(st, "Online")
		body = []string{"waiting for match"}
		if st.Rating != 0 {
			body = append([]string{fmt.Sprintf("rating %d", st.Rating)}, body...)
		}
		body = withAddr(body...)
	case InGame:
		title, body = gameLines(st.Game, w)
	case TokenRejected:
		title = string(IconCross) + "Token rejected"
		body = append([]string{detailOr(st, "set up again")}, setupLines(st, w)...)
	case NoNetwork:
		title = string(IconCross) + "No network"
		body = []string{detailOr(st, "check the cable"), "retrying..."}
	case StorageMissing:
		title = string(IconCross) + "No storage"
		body = withAddr(detailOr(st, "/perm missing"), "see README")
	case Stopping:
		title, body = "Stopping...", withAddr("finishing matches")
	case EngineFailed:
		title = string(IconCross) + "Engine failed"
		body = withAddr(detailOr(st, "engine does not answer"), "offline; retrying")
	default:
		title, body = "flipbot", []string{st.Kind.String()}
	}
	title = cut(title, w)
	var out []string
	for _, l := range body {
		if l != "" {
			out = append(out, cut(l, w))
		}
	}
	return title, out
}

func setupLines(st Status, w int) []string {
	var lines []string
	if c := clean(st.PairingCode); c != "" {
		lines = append(lines, "code "+c)
	}
	if u := shortURL(st.SetupURL); u != "" {
		lines = append(lines, splitURL(u, w)...)
	} else if a := clean(st.Address); a != "" {
		lines = append(lines, string(IconNet)+a)
	}
	return append(lines, "open in a browser")
}

func nameLine(st Status) string {
	return clean(st.BotName)
}

func nameOr(st Status, def string) string {
	if n := clean(st.BotName); n != "" {
		return n
	}
	return def
}

func detailOr(st Status, def string) string {
	if d := clean(st.Detail); d != "" {
		return d
	}
	return def
}

// gameLines lays out a match: the opponent and mode as the title, then a
// line per leg and the totals.
func gameLines(g Game, w int) (string, []string) {
	mode := clean(g.Mode)
	opp := clean(g.Opponent)
	if opp == "" {
		opp = "?"
	}
	room := w - 3 - len(mode) - 1 // "vs " + name + " " + mode
	if mode == "" {
		room = w - 3
	}
	if room < 1 {
		room = 1
	}
	title := "vs " + cut(opp, room)
	if mode != "" {
		title += strings.Repeat(" ", max(1, w-len(title)-len(mode))) + mode
	}
	var body []string
	var mine, theirs int
	for i, l := range g.Legs {
		mine += l.Mine
		theirs += l.Theirs
		line := fmt.Sprintf("%c%2d %c%2d %c%s", IconMine, l.Mine, IconTheirs, l.Theirs, IconClock, clockText(l.MyClock))
		switch {
		case l.Finished:
			line = fmt.Sprintf("%c%2d %c%2d end", IconMine, l.Mine, IconTheirs, l.Theirs)
		case l.MyTurn:
			line += string(IconTurn)
		}
		if len(g.Legs) > 1 && len(line)+2 <= w {
			line = fmt.Sprintf("%d %s", i+1, line)
		}
		body = append(body, line)
	}
	if len(g.Legs) > 1 {
		body = append(body, fmt.Sprintf("total %d-%d", mine, theirs))
	}
	return title, body
}

// clockText formats a remaining time as m:ss (rounded down; negative is
// 0:00).
func clockText(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	s := int(d / time.Second)
	if s > 99*60+59 {
		s = 99*60 + 59
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// shortURL drops the scheme and a trailing slash: the screen has no room
// for "http://".
func shortURL(s string) string {
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		s = u.Host + u.EscapedPath()
		if u.RawQuery != "" {
			s += "?" + u.RawQuery
		}
	}
	return clean(strings.TrimSuffix(s, "/"))
}

// splitURL breaks u into lines of at most w bytes, at a ':' or '/'
// where possible, so that a port is never silently cut off.
func splitURL(u string, w int) []string {
	var lines []string
	for len(u) > w && w > 0 {
		cutAt := strings.LastIndexAny(u[:w], ":/")
		if cutAt <= 0 {
			cutAt = w
		}
		lines = append(lines, u[:cutAt])
		u = u[cutAt:]
	}
	return append(lines, u)
}

// clean keeps printable ASCII and replaces anything else (control
// characters, names in other scripts) by '?': the fonts of both display
// kinds are ASCII. Characters the HD44780 ROM shows differently ('\\' is
// ¥, '~' an arrow) are replaced too.
func clean(s string) string {
	s = strings.TrimSpace(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteByte('/')
		case r == '~':
			b.WriteByte('-')
		case r >= 0x20 && r < 0x7F:
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// cut shortens s to w bytes.
func cut(s string, w int) string {
	if w < 0 {
		w = 0
	}
	if len(s) > w {
		return s[:w]
	}
	return s
}

// View is how a Status is drawn at a moment, beyond its content: the
// display loop changes it over time.
type View struct {
	// Page selects which body lines a small display shows when they do
	// not all fit; it counts up every few seconds.
	Page int
	// Shift moves an OLED image by a few pixels (0–2 right, 0–1 down)
	// against burn-in.
	Shift struct{ X, Y int }
}

// layout fits title and body into n lines: the title first, then n-1
// body lines starting at page*(n-1), cyclic, so small displays show every
// body line in turn.
func layout(title string, body []string, n, page int) []string {
	lines := []string{title}
	room := n - 1
	if room <= 0 {
		return lines[:min(n, 1)]
	}
	if len(body) <= room {
		return append(lines, body...)
	}
	pages := (len(body) + room - 1) / room
	if page < 0 {
		page = -page
	}
	first := (page % pages) * room
	for i := 0; i < room && first+i < len(body); i++ {
		lines = append(lines, body[first+i])
	}
	return lines
}

// TextLines returns the lines a cols×rows character display shows for st:
// each at most cols bytes of printable ASCII or icon codes (0–7, see
// Glyphs).
func TextLines(st Status, cols, rows int, v View) []string {
	title, body := content(st, cols)
	return layout(title, body, rows, v.Page)
}
