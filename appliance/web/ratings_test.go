package web

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/state"
)

// historyBackend is the stub backend with a rating history.
type historyBackend struct {
	stubBackend
	h ratings.History
}

func (b historyBackend) RatingHistory() ratings.History { return b.h }

func sampleHistory() ratings.History {
	t0 := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	var h ratings.History
	s := ratings.Sample{At: t0, Rating: 1500, RD: 350}
	h.Add(9, s)
	for i, r := range []string{"win", "win", "loss", "draw", "win", "loss", "win"} {
		s.At = s.At.Add(time.Duration(3+i) * time.Hour)
		s.RD = max(60, s.RD-35)
		switch r {
		case "win":
			s.Wins++
			s.Rating += 18
		case "loss":
			s.Losses++
			s.Rating -= 15
		case "draw":
			s.Draws++
			s.Rating += 1
		}
		h.Add(9, s)
	}
	return h
}

func statusHandler(t *testing.T, h ratings.History) testHandler {
	hub := state.NewHub(nil)
	hub.Update(func(st *state.Status) { st.Token = state.TokenStored })
	hd, err := New(Config{Hub: hub, Backend: historyBackend{h: h}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	return testHandler{t: t, Handler: hd}
}

// TestStatusPageDrawsTheRatingHistory: the status page draws the rating as
// a line with its RD band and marks each result counted between samples.
func TestStatusPageDrawsTheRatingHistory(t *testing.T) {
	h := sampleHistory()
	code, body := statusHandler(t, h).get("/")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `<svg id="rating-graph"`)
	assert.Contains(t, body, `class="r-line"`)
	assert.Contains(t, body, `class="r-band"`)
	assert.Equal(t, 4, strings.Count(body, `class="r-mark r-win"`))
	assert.Equal(t, 2, strings.Count(body, `class="r-mark r-loss"`))
	assert.Equal(t, 1, strings.Count(body, `class="r-mark r-draw"`))
	last := h.Samples[len(h.Samples)-1]
	assert.Equal(t, 1543.0, last.Rating)
	assert.Equal(t, 105.0, last.RD)
	assert.True(t, strings.Contains(body, "Now 1543 ± 105"), "the rating now")
	assert.True(t, strings.Contains(body, "4 won, 1 drawn, 2 lost"), "the counts")

	g := newRatingGraph(h)
	pts := strings.Fields(g.Line)
	require.Len(t, pts, len(h.Samples))
	assert.Equal(t, "44,", pts[0][:3], "the first sample at the left")
	assert.True(t, strings.HasPrefix(pts[len(pts)-1], "472,"), "the last at the right")

	code, body = statusHandler(t, ratings.History{}).get("/")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `id="no-rating-history"`)
	var one ratings.History
	one.Add(9, ratings.Sample{At: time.Now(), Rating: 1500, RD: 350})
	_, body = statusHandler(t, one).get("/")
	assert.Contains(t, body, `<svg id="rating-graph"`, "one sample draws a level line")
	assert.Equal(t, 2, len(strings.Fields(newRatingGraph(one).Line)))
}

// fullHistory is a history of ratings.MaxSamples samples, a result each.
func fullHistory() ratings.History {
	var h ratings.History
	s := ratings.Sample{At: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Rating: 1500, RD: 350}
	for i := range ratings.MaxSamples {
		s.At = s.At.Add(time.Hour)
		s.RD = max(60, s.RD-1)
		if i%2 == 0 {
			s.Wins++
			s.Rating += 9
		} else {
			s.Losses++
			s.Rating -= 8
		}
		h.Add(9, s)
	}
	return h
}

// TestRatingGraphCostIsLinear: the graph of a full history allocates in
// proportion to its samples. Before, the RD band's lower edge was built by
// prepending each point to the ones before, copying the list each time:
// 1,000 samples allocated 8.9 MB (BenchmarkRatingGraph), now 0.36 MB.
func TestRatingGraphCostIsLinear(t *testing.T) {
	h := fullHistory()
	require.Len(t, h.Samples, ratings.MaxSamples)
	var g *ratingGraph
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g = newRatingGraph(h)
	runtime.ReadMemStats(&after)
	n := after.TotalAlloc - before.TotalAlloc
	assert.Less(t, n, uint64(1<<20), "bytes allocated for %d samples", len(h.Samples))
	band := strings.Fields(g.Band)
	require.Len(t, band, 2*len(h.Samples))
	// The band goes right along the upper edge and back left along the
	// lower one.
	for i := range h.Samples {
		up, low := band[i], band[len(band)-1-i]
		ux, _, _ := strings.Cut(up, ",")
		lx, _, _ := strings.Cut(low, ",")
		require.Equal(t, ux, lx, "point %d", i)
	}
	line := strings.Fields(g.Line)
	require.Len(t, line, len(h.Samples))
	assert.True(t, strings.HasPrefix(line[0], fmt.Sprintf("%d,", g.Left)), "the first sample at the left")
}

// BenchmarkRatingGraph draws the graph of a full history.
func BenchmarkRatingGraph(b *testing.B) {
	h := fullHistory()
	b.ReportAllocs()
	for b.Loop() {
		newRatingGraph(h)
	}
}

// BenchmarkStatusPageFullHistory serves the status page with a full rating
// history.
func BenchmarkStatusPageFullHistory(b *testing.B) {
	hub := state.NewHub(nil)
	hub.Update(func(st *state.Status) { st.Token = state.TokenStored })
	hd, err := New(Config{Hub: hub, Backend: historyBackend{h: fullHistory()}, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	b.ReportAllocs()
	size := 0
	for b.Loop() {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = "127.0.0.1"
		hd.ServeHTTP(rec, req)
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "page-bytes")
}
