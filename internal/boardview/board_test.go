package boardview

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// svgNode is the SVG read back as XML.
type svgNode struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []svgNode  `xml:",any"`
}

func (n svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func parse(t *testing.T, b Board) svgNode {
	t.Helper()
	var n svgNode
	require.NoError(t, xml.Unmarshal([]byte(b.SVG()), &n), "the SVG is well-formed")
	return n
}

func TestSVGCoordinates(t *testing.T) {
	for _, size := range []int{8, 10} {
		n := parse(t, Board{Size: size, Last: -1, Best: -1})
		var files, ranks []string
		for _, c := range n.Nodes {
			if c.attr("class") != "coord" {
				continue
			}
			if c.attr("y") == "15" {
				files = append(files, c.Text)
			} else {
				ranks = append(ranks, c.Text)
			}
		}
		require.Len(t, files, size)
		require.Len(t, ranks, size)
		assert.Equal(t, "a", files[0])
		assert.Equal(t, File(size-1), files[size-1])
		assert.Equal(t, "1", ranks[0])
		assert.Equal(t, strconv.Itoa(size), ranks[size-1])
		v := strconv.Itoa(ViewSize(size))
		assert.Equal(t, "0 0 "+v+" "+v, n.attr("viewBox"))
	}
}

func TestSVGCellsAndMarks(t *testing.T) {
	// d1 black, e1 white, a2 blocked; the last move e1, a better one c1.
	cells := "000120000" + strings.Repeat("0", 55)
	cells = cells[:8] + "x" + cells[9:]
	n := parse(t, Board{Size: 8, Cells: cells, Last: 4, Best: 2, LastClass: "mistake", Legal: []int{2, 99, -3}, ID: "board",
		Label: `after "move" <3>`, Data: []Attr{{"ply", "3"}, {"Bad", "x"}, {"last", "9"}}})
	assert.Equal(t, "board", n.attr("id"))
	assert.Equal(t, `after "move" <3>`, n.attr("aria-label"))
	assert.Equal(t, "3", n.attr("data-ply"))
	assert.Equal(t, "9", n.attr("data-last"))
	discs := map[string]string{}
	var blocked, legal int
	marks := map[string]svgNode{}
	for _, c := range n.Nodes {
		switch cl := c.attr("class"); {
		case strings.HasPrefix(cl, "disc"):
			discs[c.attr("data-sq")] = cl
		case cl == "blk":
			blocked++
		case cl == "m-legal":
			legal++
		case strings.HasPrefix(cl, "m-"):
			marks[strings.Fields(cl)[0]] = c
		}
	}
	assert.Len(t, discs, 63, "a disc place on every open square")
	assert.Equal(t, "disc b", discs["3"])
	assert.Equal(t, "disc w", discs["4"])
	assert.Equal(t, "disc", discs["0"])
	assert.NotContains(t, discs, "8", "a2 is blocked")
	assert.Equal(t, 1, blocked)
	assert.Equal(t, 1, legal, "squares off the board are not dotted")
	x, y := Centre(4, 8)
	assert.Equal(t, "m-last c-mistake", marks["m-last"].attr("class"))
	assert.Equal(t, strconv.Itoa(x), marks["m-last"].attr("cx"))
	assert.Equal(t, strconv.Itoa(y), marks["m-last"].attr("cy"))
	assert.Empty(t, marks["m-last"].attr("visibility"))
	assert.Empty(t, marks["m-best"].attr("visibility"))
	none := parse(t, Board{Size: 8, Last: -1, Best: -1})
	for _, c := range none.Nodes {
		if cl := c.attr("class"); cl == "m-last" || cl == "m-best" {
			assert.Equal(t, "hidden", c.attr("visibility"), cl)
		}
	}
}

func TestSVGRefusesSizes(t *testing.T) {
	for _, size := range []int{0, -1, MaxSize + 1, 1 << 30} {
		assert.Empty(t, Board{Size: size}.SVG(), "size %d", size)
	}
	assert.NotEmpty(t, Board{Size: MaxSize, Last: -1, Best: -1}.SVG())
}

func TestCSSStylesTheClasses(t *testing.T) {
	for _, class := range []string{".board-svg", ".coord", ".sq", ".disc.b", ".disc.w", ".blk", ".m-last", ".m-best", ".m-legal", "max-width"} {
		assert.Contains(t, CSS, class)
	}
}
