package web

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"flipbot.dev/flipbot/appliance/ratings"
)

// The status page's rating graph: the bot's FlipSight rating over time as
// a line in SVG, its RD as a band around it, and each result FlipSight
// counted between two samples marked (win, loss, draw), drawn by the
// server.

// Rating graph geometry, in the SVG's units.
const (
	ratingW    = 480
	ratingH    = 150
	ratingLeft = 44
	ratingTop  = 8
	ratingBot  = 20
)

// ratingGraph is what the status page's rating card gets.
type ratingGraph struct {
	W, H, Left, Right, Top, Bottom int
	Line, Band                     string
	Grid                           []gridLine
	Marks                          []ratingMark
	From, To                       string
	Last                           ratings.Sample
	N                              int
}

type ratingMark struct {
	X, Y   int
	Result string
	Title  string
}

// newRatingGraph draws h; nil when it holds no sample.
func newRatingGraph(h ratings.History) *ratingGraph {
	n := len(h.Samples)
	if n == 0 {
		return nil
	}
	g := &ratingGraph{W: ratingW, H: ratingH, Left: ratingLeft, Right: ratingW - 8, Top: ratingTop, Bottom: ratingH - ratingBot,
		Last: h.Samples[n-1], N: n}
	first, last := h.Samples[0].At, h.Samples[n-1].At
	g.From, g.To = first.Local().Format("2006-01-02"), last.Local().Format("2006-01-02 15:04")
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range h.Samples {
		lo, hi = min(lo, s.Rating-s.RD), max(hi, s.Rating+s.RD)
	}
	lo, hi = math.Floor(lo/50)*50, math.Ceil(hi/50)*50
	if hi-lo < 100 {
		mid := math.Round((lo+hi)/100) * 50
		lo, hi = mid-50, mid+50
	}
	span := last.Sub(first)
	x := func(i int) int {
		if span <= 0 {
			if n == 1 {
				return g.Right
			}
			return g.Left + i*(g.Right-g.Left)/(n-1)
		}
		return g.Left + int(float64(h.Samples[i].At.Sub(first))/float64(span)*float64(g.Right-g.Left))
	}
	y := func(v float64) int {
		return g.Bottom - int(math.Round((v-lo)/(hi-lo)*float64(g.Bottom-g.Top)))
	}
	for _, f := range []float64{0, 0.5, 1} {
		v := lo + f*(hi-lo)
		g.Grid = append(g.Grid, gridLine{Y: y(v), Label: fmt.Sprintf("%.0f", v)})
	}
	// The band goes right along the upper edge and back left along the
	// lower one, written in a second pass from the last sample to the
	// first: each point once, linear in the samples (prepending each point
	// to the list was quadratic).
	xs := make([]int, n)
	var line, band []byte
	point := func(b []byte, x, y int) []byte {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(x), 10)
		b = append(b, ',')
		return strconv.AppendInt(b, int64(y), 10)
	}
	if n == 1 {
		// One sample: a short level line, so that it shows.
		line = point(line, g.Left, y(h.Samples[0].Rating))
	}
	for i, s := range h.Samples {
		xs[i] = x(i)
		line = point(line, xs[i], y(s.Rating))
		band = point(band, xs[i], y(s.Rating+s.RD))
		if r := h.Result(i); r != "" {
			g.Marks = append(g.Marks, ratingMark{X: xs[i], Y: y(s.Rating), Result: r,
				Title: fmt.Sprintf("%s: %s, rating %.0f ± %.0f", s.At.Local().Format(time.DateTime), r, s.Rating, s.RD)})
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := h.Samples[i]
		band = point(band, xs[i], y(s.Rating-s.RD))
	}
	g.Line, g.Band = string(line), string(band)
	return g
}
