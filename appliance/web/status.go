package web

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"net/http"
	"time"

	"flipbot.dev/flipbot/appliance/state"
)

// serveHome is the setup page while the status shows no token in effect,
// else the status page. (What a setup form may do is the backend's
// answer: serveSetup.)
func (h *Handler) serveHome(w http.ResponseWriter, r *http.Request) {
	st := h.refreshed()
	if st.Token == state.TokenNone {
		notice := h.takeFlash(r)
		h.render(w, http.StatusOK, "setup", pageData{Title: "Set up", St: st, CSRF: h.csrf.token(w, r), Notice: notice})
		return
	}
	h.render(w, http.StatusOK, "status", pageData{Title: "Status", St: st, Notice: h.takeFlash(r), Refresh: true,
		Ratings: newRatingGraph(h.backend.RatingHistory()), Live: h.live(st)})
}

// liveView is what the live part of the status page shows: the status
// and what the LEDs and the display show.
type liveView struct {
	state.Status
	Mirror state.Mirror
}

// live returns the live part's view of st.
func (h *Handler) live(st state.Status) liveView {
	return liveView{Status: st, Mirror: h.backend.Mirror()}
}

// serveLive renders the live part of the status page for refresh.js.
func (h *Handler) serveLive(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "live", h.live(h.refreshed()))
}

// serveDisplayPNG answers /display.png: the display's current screen, as
// the device draws it (no password, like the status page; the image is
// rendered once per change of the screen, a few kB).
func (h *Handler) serveDisplayPNG(w http.ResponseWriter, r *http.Request) {
	b, err := h.backend.DisplayPNG()
	if err != nil {
		http.Error(w, "no display picture", http.StatusNotFound)
		return
	}
	sum := fnv.New64a()
	sum.Write(b)
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", fmt.Sprintf(`"%x"`, sum.Sum64()))
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

// serveAPIStatus answers /api/status: the Status as JSON, without the token
// or the pairing code.
func (h *Handler) serveAPIStatus(w http.ResponseWriter, r *http.Request) {
	b, err := h.refreshed().JSON()
	if err != nil {
		http.Error(w, "encode status", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}

// refreshed returns a snapshot with the slowly changing device facts
// (addresses, free space, uptime) brought up to date, at most every few seconds.
func (h *Handler) refreshed() state.Status {
	h.mu.Lock()
	stale := time.Since(h.factsAt) > 3*time.Second
	if stale {
		h.factsAt = time.Now()
	}
	h.mu.Unlock()
	if stale {
		h.backend.RefreshFacts()
	}
	st := h.hub.Snapshot()
	runClocks(&st, time.Now())
	return st
}

// runClocks runs the mover's clock of every active leg down from the time
// the bot reported it, so that the page shows live clocks between reports.
func runClocks(st *state.Status, now time.Time) {
	for i := range st.Matches {
		for j := range st.Matches[i].Legs {
			l := &st.Matches[i].Legs[j]
			if l.Status != "active" || l.ClocksAt.IsZero() || l.Turn < 1 || l.Turn > 2 || now.Before(l.ClocksAt) {
				continue
			}
			c := &l.ClocksMS[l.Turn-1]
			*c = max(0, *c-now.Sub(l.ClocksAt).Milliseconds())
			l.ClocksAt = now
		}
	}
}
