package web

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/record"
)

// Config is what the pages serve and whom they ask. Hub and Backend are
// required.
type Config struct {
	// Hub holds the status the pages show; they only read it.
	Hub *state.Hub
	// Backend acts for the pages: the pairing code, the token, the settings.
	Backend Backend
	// Games keeps the game records the games pages show (nil: none).
	Games *record.Store
	// PasswordFiles hold the admin password, the first existing file
	// winning; they are read at every check, so a changed password applies
	// at once.
	PasswordFiles []string
	// Egaroucid offers Egaroucid for std on the settings page.
	Egaroucid bool
	// Logger gets refusals and failures (slog.Default() when nil).
	Logger *slog.Logger
}

// Handler is the appliance's pages and their API: one route table
// (routes) behind one middleware chain (security headers, the Host check,
// cross-origin protection), the admin password on the token and settings
// pages, CSRF tokens on every form, rate limits on wrong pairing codes and
// passwords. Safe for concurrent use.
type Handler struct {
	cfg       Config
	hub       *state.Hub
	backend   Backend
	log       *slog.Logger
	tmpl      *template.Template
	csrf      *csrfGuard
	pw        passwordSource
	codeLimit *failureLimiter
	pwLimit   *failureLimiter
	flashes   flashBox // per-browser notices for the next page
	serve     http.Handler
	// exportSlot holds one token while an export of the games runs: one
	// at a time.
	exportSlot chan struct{}
	// listSlot holds a token for each game list being made (/games,
	// /api/games): at most maxListsAtOnce.
	listSlot chan struct{}
	// refused logs refused requests in aggregate.
	refused *refusalLog

	mu      sync.Mutex // guards factsAt
	factsAt time.Time  // when the device facts were last brought up to date
}

// New returns the pages of cfg.
func New(cfg Config) (*Handler, error) {
	if cfg.Hub == nil || cfg.Backend == nil {
		return nil, errors.New("web: a hub and a backend are needed")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	csrf, err := newCSRFGuard()
	if err != nil {
		return nil, err
	}
	h := &Handler{
		cfg: cfg, hub: cfg.Hub, backend: cfg.Backend, log: cfg.Logger, tmpl: tmpl, csrf: csrf,
		pw:         passwordSource{files: cfg.PasswordFiles},
		codeLimit:  newFailureLimiter(time.Now, FailWindow, FailPerClient, FailGlobal),
		pwLimit:    newFailureLimiter(time.Now, FailWindow, FailPerClient, FailGlobal),
		exportSlot: make(chan struct{}, 1),
		listSlot:   make(chan struct{}, maxListsAtOnce),
		refused:    newRefusalLog(cfg.Logger, RefusalLogInterval),
	}
	h.serve = h.routes()
	return h, nil
}

// ServeHTTP serves the pages.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.serve.ServeHTTP(w, r) }

// Limits on wrong pairing codes and passwords: FailPerClient per client
// per FailWindow. When FailGlobal wrong codes have come from all clients
// within the window, the six-digit code is replaced by a twelve-digit one
// (and each further FailGlobal by a fresh one); nobody is locked out.
// SECURITY.md has the reasoning and the odds.
const (
	FailWindow    = 10 * time.Minute
	FailPerClient = 5
	FailGlobal    = 20
)

// securityHeaders marks every answer: no framing, no inline scripts, no
// referrer, no caching of pages that may show device facts.
func securityHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		if !strings.HasPrefix(r.URL.Path, "/static/") {
			hd.Set("Cache-Control", "no-store")
		}
		h.ServeHTTP(w, r)
	})
}

// routes returns the route table behind the middleware chain.
func (h *Handler) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler()))
	mux.HandleFunc("GET /{$}", h.serveHome)
	mux.HandleFunc("GET /live", h.serveLive)
	mux.HandleFunc("GET /display.png", h.serveDisplayPNG)
	mux.HandleFunc("GET /api/status", h.serveAPIStatus)
	mux.HandleFunc("POST /setup", h.serveSetup)
	mux.HandleFunc("GET /token", h.admin(h.serveTokenPage))
	mux.HandleFunc("POST /token", h.admin(h.serveTokenPost))
	mux.HandleFunc("GET /settings", h.admin(h.serveSettingsPage))
	mux.HandleFunc("POST /settings", h.admin(h.serveSettingsPost))
	h.gameRoutes(mux)
	// Cross-origin POSTs are refused before any handler (Sec-Fetch-Site /
	// Origin), on top of the per-form CSRF tokens.
	cop := http.NewCrossOriginProtection()
	return securityHeaders(h.hostGuard(cop.Handler(mux)))
}

// render writes a page; on a template error it answers 500 without details.
func (h *Handler) render(w http.ResponseWriter, code int, name string, d any) {
	var buf bytes.Buffer
	if err := h.tmpl.ExecuteTemplate(&buf, name, d); err != nil {
		h.log.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func (h *Handler) message(w http.ResponseWriter, r *http.Request, code int, title, notice, back string) {
	h.render(w, code, "message", pageData{Title: title, St: h.hub.Snapshot(), Notice: notice, NoticeClass: "error", Back: back})
}

// clientKey is the rate limiter's key for r: the client's IP address.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// tooMany answers 429 with a Retry-After.
func (h *Handler) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration, what string) {
	h.refused.note("too many wrong "+what+": refused for a while", "client", limiterKey(clientKey(r)))
	secs := int(wait.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", fmt.Sprint(secs))
	h.message(w, r, http.StatusTooManyRequests, "Too many attempts",
		fmt.Sprintf("Too many wrong %s. Wait %d seconds and try again.", what, secs), "/")
}

// admin guards next with the admin password (HTTP Basic, user gokrazy). Wrong
// passwords are rate-limited per client, each try counted before it is
// checked; many wrong passwords overall are logged, and lock nobody out
// (SECURITY.md).
func (h *Handler) admin(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := clientKey(r)
		try, wait := h.pwLimit.begin(key)
		if try == nil {
			h.tooMany(w, r, wait, "passwords")
			return
		}
		ok, present, err := h.pw.checkBasic(r)
		if ok || !present || err != nil {
			try.ok() // right, or no password sent
		}
		if err != nil {
			h.refused.note("admin page refused: no admin password", "err", err)
			h.message(w, r, http.StatusForbidden, "No admin password",
				"This device has no admin password configured (gokrazy's /perm/gokr-pw.txt or /etc/gokr-pw.txt; on a PC the -password-file flag), so the token and settings pages are shut.", "/")
			return
		}
		if !ok {
			if present {
				h.refused.note("wrong admin password", "client", key)
				if try.failed() {
					h.log.Warn("many wrong admin passwords from the LAN in the last minutes; each address stays limited on its own", "limit", FailGlobal)
				}
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="flipbot (user gokrazy, the gokrazy web UI password)", charset="UTF-8"`)
			h.message(w, r, http.StatusUnauthorized, "Password needed",
				"This page needs the device's admin password: user gokrazy and the gokrazy web UI password.", "/")
			return
		}
		next(w, r)
	}
}
