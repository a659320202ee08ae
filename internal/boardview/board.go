package boardview

import (
	_ "embed"
	"html/template"
	"strconv"
	"strings"
)

// Board geometry, in the SVG's units: a square's side, the margin that
// holds the coordinates, and a disc's radius.
const (
	Cell   = 40
	Margin = 22
	DiscR  = 16
)

// MaxSize bounds a board's side: the rules' boards are 8 and 10 squares,
// and no caller can make the SVG grow past 26 files (a…z).
const MaxSize = 26

// CSS is the boards' style sheet (board.css): colours, and a width of
// 100 % of the container at most.
//
//go:embed board.css
var CSS string

// Board is one position to draw.
type Board struct {
	// Size is the squares per side (1…MaxSize; anything else draws nothing).
	Size int
	// Cells holds Size×Size cells, a1 first, row by row: '1' a black
	// disc, '2' a white disc, 'x' a blocked square, anything else empty.
	// Missing cells are empty.
	Cells string
	// Last is the last move's square, marked with a dot; -1 for none.
	Last int
	// LastClass is added to the last move's mark as c-LastClass (the
	// replay's loss classes colour it); empty for the plain mark.
	LastClass string
	// Best is the square the last move should have taken, ringed; -1 for
	// none.
	Best int
	// Legal are the squares the side to move may play, dotted.
	Legal []int
	// ID is the SVG element's id (none when empty).
	ID string
	// Label is the SVG's accessible name (aria-label).
	Label string
	// Data are data-NAME attributes of the SVG element, in order; a name
	// that is not lower-case letters and hyphens is left out.
	Data []Attr
}

// Attr is one data- attribute: data-Name="Value".
type Attr struct {
	Name, Value string
}

// ViewSize returns the side of the SVG's viewBox for a board of size.
func ViewSize(size int) int { return 2*Margin + size*Cell }

// Centre returns the centre of square sq on a board of size, in the SVG's
// units.
func Centre(sq, size int) (x, y int) {
	if size <= 0 {
		return Margin, Margin
	}
	return Margin + (sq%size)*Cell + Cell/2, Margin + (sq/size)*Cell + Cell/2
}

// File returns the letter of column c (0 is a).
func File(c int) string { return string(rune('a' + c)) }

// SVG returns the board as an svg element for a page.
func (b Board) SVG() template.HTML {
	if b.Size < 1 || b.Size > MaxSize {
		return ""
	}
	n := b.Size
	v := strconv.Itoa(ViewSize(n))
	var w strings.Builder
	w.Grow(200 + n*n*120)
	w.WriteString(`<svg`)
	if b.ID != "" {
		w.WriteString(` id="` + esc(b.ID) + `"`)
	}
	w.WriteString(` class="board-svg s` + strconv.Itoa(n) + `" viewBox="0 0 ` + v + " " + v + `" role="img"`)
	if b.Label != "" {
		w.WriteString(` aria-label="` + esc(b.Label) + `"`)
	}
	for _, a := range b.Data {
		if attrName(a.Name) {
			w.WriteString(` data-` + a.Name + `="` + esc(a.Value) + `"`)
		}
	}
	w.WriteString(">\n")
	w.WriteString(`<rect class="bd-frame" x="0" y="0" width="` + v + `" height="` + v + `"/>` + "\n")
	for i := range n {
		mid := strconv.Itoa(Margin + i*Cell + Cell/2)
		w.WriteString(`<text class="coord" x="` + mid + `" y="` + strconv.Itoa(Margin-7) + `">` + File(i) + `</text>`)
	}
	for i := range n {
		w.WriteString(`<text class="coord" x="` + strconv.Itoa(Margin/2) + `" y="` + strconv.Itoa(Margin+i*Cell+Cell/2+5) + `">` + strconv.Itoa(i+1) + `</text>`)
	}
	w.WriteString("\n")
	side := strconv.Itoa(Cell)
	for sq := range n * n {
		x, y := Margin+(sq%n)*Cell, Margin+(sq/n)*Cell
		xs, ys := strconv.Itoa(x), strconv.Itoa(y)
		c := byte('0')
		if sq < len(b.Cells) {
			c = b.Cells[sq]
		}
		if c == 'x' {
			x2, y2 := strconv.Itoa(x+Cell), strconv.Itoa(y+Cell)
			w.WriteString(`<rect class="blk" x="` + xs + `" y="` + ys + `" width="` + side + `" height="` + side + `"/>`)
			w.WriteString(`<path class="blk-x" d="M` + xs + " " + ys + "L" + x2 + " " + y2 + "M" + x2 + " " + ys + "L" + xs + " " + y2 + `"/>` + "\n")
			continue
		}
		disc := "disc"
		switch c {
		case '1':
			disc = "disc b"
		case '2':
			disc = "disc w"
		}
		cx, cy := Centre(sq, n)
		w.WriteString(`<rect class="sq" x="` + xs + `" y="` + ys + `" width="` + side + `" height="` + side + `"/>`)
		w.WriteString(`<circle class="` + disc + `" data-sq="` + strconv.Itoa(sq) + `" cx="` + strconv.Itoa(cx) + `" cy="` + strconv.Itoa(cy) + `" r="` + strconv.Itoa(DiscR) + `"/>` + "\n")
	}
	for _, sq := range b.Legal {
		if sq >= 0 && sq < n*n {
			cx, cy := Centre(sq, n)
			w.WriteString(`<circle class="m-legal" cx="` + strconv.Itoa(cx) + `" cy="` + strconv.Itoa(cy) + `" r="4"/>`)
		}
	}
	mark := func(class string, sq, r int) {
		cx, cy := Centre(max(sq, 0), n)
		w.WriteString(`<circle class="` + esc(class) + `" cx="` + strconv.Itoa(cx) + `" cy="` + strconv.Itoa(cy) + `" r="` + strconv.Itoa(r) + `"`)
		if sq < 0 || sq >= n*n {
			w.WriteString(` visibility="hidden"`)
		}
		w.WriteString("/>\n")
	}
	mark("m-best", b.Best, DiscR+1)
	last := "m-last"
	if b.LastClass != "" {
		last += " c-" + b.LastClass
	}
	mark(last, b.Last, 6)
	w.WriteString(`</svg>`)
	return template.HTML(w.String()) //nolint:gosec // every text from outside is escaped above
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// attrName reports whether s may follow data- as written: lower-case
// letters and hyphens.
func attrName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return true
}
