package appliance

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strings"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/config"
)

//go:embed web
var webFS embed.FS

// pageData is what every page template gets.
type pageData struct {
	Title       string
	St          state.Status
	CSRF        string
	Notice      string
	NoticeClass string
	Refresh     bool
	Back        string
	// settings page
	Set       settings.Settings
	Modes     []string
	Displays  []string
	Egaroucid bool
}

func parseTemplates() (*template.Template, error) {
	funcs := template.FuncMap{
		"cells":     boardCells,
		"clock":     formatClock,
		"colorName": colorName,
		"tokenText": tokenText,
		"bytes":     formatBytes,
		"uptime":    formatUptime,
		"when":      func(t time.Time) string { return t.Format("2006-01-02 15:04") },
		"list":      func(s ...string) []string { return s },
		"minus1":    func(n int) int { return n - 1 },
		"deref":     func(f *float64) float64 { return *f },
	}
	t, err := template.New("pages").Funcs(funcs).ParseFS(webFS, "web/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse page templates: %w", err)
	}
	return t, nil
}

// boardCells returns the CSS classes of a leg's squares, a1 first.
func boardCells(l state.Leg) []string {
	if l.BoardSize != 8 && l.BoardSize != 10 {
		return nil // flipsight refuses other sizes; never allocate from one
	}
	n := l.BoardSize * l.BoardSize
	out := make([]string, n)
	blocked := map[int]bool{}
	for _, b := range l.Blocked {
		blocked[b] = true
	}
	for i := range n {
		c := "e"
		switch {
		case blocked[i]:
			c = "x"
		case i < len(l.Board) && l.Board[i] == 1:
			c = "b"
		case i < len(l.Board) && l.Board[i] == 2:
			c = "w"
		}
		if i == l.LastMove {
			c += " last"
		}
		out[i] = c
	}
	return out
}

func formatClock(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	s := ms / 1000
	return fmt.Sprintf("%d:%02d.%d", s/60, s%60, (ms%1000)/100)
}

func colorName(c int) string {
	switch c {
	case 1:
		return "black"
	case 2:
		return "white"
	}
	return "?"
}

func tokenText(s state.TokenSource) string {
	switch s {
	case state.TokenEnv:
		return "from the environment (" + config.TokenEnv + ")"
	case state.TokenStored:
		return "saved on this device"
	case state.TokenMemory:
		return "entered, but not saved (storage problem): enter it again after a restart"
	}
	return "none"
}

func formatBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", b>>10)
}

func formatUptime(s int64) string {
	d := time.Duration(s) * time.Second
	if d >= 24*time.Hour {
		return fmt.Sprintf("%dd %s", d/(24*time.Hour), (d % (24 * time.Hour)).String())
	}
	return d.String()
}

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

// handler returns the appliance's HTTP handler.
func (a *app) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", staticHandler()))
	mux.HandleFunc("GET /{$}", a.serveHome)
	mux.HandleFunc("GET /live", a.serveLive)
	mux.HandleFunc("GET /api/status", a.serveAPIStatus)
	mux.HandleFunc("POST /setup", a.serveSetup)
	mux.HandleFunc("GET /token", a.admin(a.serveTokenPage))
	mux.HandleFunc("POST /token", a.admin(a.serveTokenPost))
	mux.HandleFunc("GET /settings", a.admin(a.serveSettingsPage))
	mux.HandleFunc("POST /settings", a.admin(a.serveSettingsPost))
	a.gameRoutes(mux)
	// Cross-origin POSTs are refused before any handler (Sec-Fetch-Site /
	// Origin), on top of the per-form CSRF tokens.
	cop := http.NewCrossOriginProtection()
	return securityHeaders(a.hostGuard(cop.Handler(mux)))
}

// render writes a page; on a template error it answers 500 without details.
func (a *app) render(w http.ResponseWriter, code int, name string, d any) {
	var buf bytes.Buffer
	if err := a.tmpl.ExecuteTemplate(&buf, name, d); err != nil {
		a.log.Error("render page", "page", name, "err", err)
		http.Error(w, "internal error rendering the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func (a *app) message(w http.ResponseWriter, r *http.Request, code int, title, notice, back string) {
	a.render(w, code, "message", pageData{Title: title, St: a.hub.Snapshot(), Notice: notice, NoticeClass: "error", Back: back})
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
func (a *app) tooMany(w http.ResponseWriter, r *http.Request, wait time.Duration, what string) {
	secs := int(wait.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", fmt.Sprint(secs))
	a.message(w, r, http.StatusTooManyRequests, "Too many attempts",
		fmt.Sprintf("Too many wrong %s. Wait %d seconds and try again.", what, secs), "/")
}

// admin guards h with the admin password (HTTP Basic, user gokrazy). Wrong
// passwords are rate-limited per client, each try counted before it is
// checked; many wrong passwords overall are logged, and lock nobody out
// (SECURITY.md).
func (a *app) admin(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := clientKey(r)
		try, wait := a.pwLimit.begin(key)
		if try == nil {
			a.tooMany(w, r, wait, "passwords")
			return
		}
		ok, present, err := a.pw.checkBasic(r)
		if ok || !present || err != nil {
			try.ok() // right, or no password sent
		}
		if err != nil {
			a.log.Warn("admin page refused: no admin password", "err", err)
			a.message(w, r, http.StatusForbidden, "No admin password",
				"This device has no admin password configured (gokrazy's /perm/gokr-pw.txt or /etc/gokr-pw.txt; on a PC the -password-file flag), so the token and settings pages are shut.", "/")
			return
		}
		if !ok {
			if present {
				a.log.Warn("wrong admin password", "client", key)
				if try.failed() {
					a.log.Warn("many wrong admin passwords from the LAN in the last minutes; each address stays limited on its own", "limit", failGlobal)
				}
			}
			w.Header().Set("WWW-Authenticate", `Basic realm="flipbot (user gokrazy, the gokrazy web UI password)", charset="UTF-8"`)
			a.message(w, r, http.StatusUnauthorized, "Password needed",
				"This page needs the device's admin password: user gokrazy and the gokrazy web UI password.", "/")
			return
		}
		h(w, r)
	}
}
