package web

import (
	"net/http"
	"time"

	"flipbot.dev/flipbot/appliance/state"
)

// serveHome is the setup page while no token is in effect, else the status page.
func (h *Handler) serveHome(w http.ResponseWriter, r *http.Request) {
	st := h.refreshed()
	if setupNeeded(st) {
		notice := h.takeFlash(r)
		h.render(w, http.StatusOK, "setup", pageData{Title: "Set up", St: st, CSRF: h.csrf.token(w, r), Notice: notice})
		return
	}
	h.render(w, http.StatusOK, "status", pageData{Title: "Status", St: st, Notice: h.takeFlash(r), Refresh: true,
		Ratings: newRatingGraph(h.backend.RatingHistory())})
}

// serveLive renders the live part of the status page for refresh.js.
func (h *Handler) serveLive(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "live", h.refreshed())
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
