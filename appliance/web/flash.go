package web

import (
	"crypto/sha256"
	"net/http"
	"sync"
	"time"
)

// Limits of the flash notices: few browsers set a device up, and a notice
// not picked up soon is stale.
const (
	flashTTL = 5 * time.Minute
	flashMax = 32
)

// flashBox keeps one notice per browser for its next page view. A browser
// is known by its CSRF cookie (every form that sets a notice has one), so
// a notice reaches the browser whose form made it, never another visitor.
// The zero value is ready; safe for concurrent use.
type flashBox struct {
	mu sync.Mutex
	m  map[[32]byte]flashNote
}

type flashNote struct {
	text string
	at   time.Time
}

// browserKey identifies r's browser, false when it has no CSRF cookie.
func browserKey(r *http.Request) ([32]byte, bool) {
	c, err := r.Cookie(CSRFCookie)
	if err != nil || len(c.Value) < 20 {
		return [32]byte{}, false
	}
	return sha256.Sum256([]byte(c.Value)), true
}

func (f *flashBox) set(r *http.Request, text string, now time.Time) {
	k, ok := browserKey(r)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[[32]byte]flashNote{}
	}
	for key, n := range f.m {
		if now.Sub(n.at) > flashTTL {
			delete(f.m, key)
		}
	}
	if len(f.m) >= flashMax {
		// Drop the oldest to keep the box bounded.
		var oldest [32]byte
		first := true
		for key, n := range f.m {
			if first || n.at.Before(f.m[oldest].at) {
				oldest, first = key, false
			}
		}
		delete(f.m, oldest)
	}
	f.m[k] = flashNote{text: text, at: now}
}

func (f *flashBox) take(r *http.Request, now time.Time) string {
	k, ok := browserKey(r)
	if !ok {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, ok := f.m[k]
	if !ok {
		return ""
	}
	delete(f.m, k)
	if now.Sub(n.at) > flashTTL {
		return ""
	}
	return n.text
}

// setFlash keeps a notice for the next page view of r's browser only.
func (h *Handler) setFlash(r *http.Request, s string) { h.flashes.set(r, s, time.Now()) }

// takeFlash returns (once) the notice kept for r's browser.
func (h *Handler) takeFlash(r *http.Request) string { return h.flashes.take(r, time.Now()) }
