package appliance

import (
	"net/http"
	"time"

	"flipbot.dev/flipbot/appliance/state"
)

// serveHome is the setup page while no token is in effect, else the status page.
func (a *app) serveHome(w http.ResponseWriter, r *http.Request) {
	st := a.refreshed()
	if setupNeeded(st) {
		notice := a.takeFlash(r)
		a.render(w, http.StatusOK, "setup", pageData{Title: "Set up", St: st, CSRF: a.csrf.token(w, r), Notice: notice})
		return
	}
	a.render(w, http.StatusOK, "status", pageData{Title: "Status", St: st, Notice: a.takeFlash(r), Refresh: true})
}

// serveLive renders the live part of the status page for refresh.js.
func (a *app) serveLive(w http.ResponseWriter, r *http.Request) {
	a.liveHits.Add(1)
	a.render(w, http.StatusOK, "live", a.refreshed())
}

// serveAPIStatus answers /api/status: the Status as JSON, without the token
// or the pairing code.
func (a *app) serveAPIStatus(w http.ResponseWriter, r *http.Request) {
	b, err := a.refreshed().JSON()
	if err != nil {
		http.Error(w, "encode status", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}

// refreshed returns a snapshot with the slowly changing device facts
// (addresses, free space, uptime) brought up to date, at most every few seconds.
func (a *app) refreshed() state.Status {
	a.mu.Lock()
	stale := time.Since(a.factsAt) > 3*time.Second
	if stale {
		a.factsAt = time.Now()
	}
	a.mu.Unlock()
	if stale {
		a.refreshFacts()
	}
	st := a.hub.Snapshot()
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
