package web

import (
	"net"
	"net/http"
	"strings"

	"flipbot.dev/flipbot/internal/text"
)

// localNameSuffixes returns the domains a home network's own DNS or mDNS
// serves and that nobody can register publicly: a name under them that
// begins with the device's host name is the device's.
func localNameSuffixes() []string {
	return []string{".local", ".lan", ".home", ".home.arpa", ".internal"}
}

// hostAllowed reports whether host (a Host header, port removed) names
// this device: an IP address (the pages are bound to the device's own
// addresses only, so any address the connection came in on is one), the
// device's host name, the host name under a local domain, or localhost.
// Any other name is a page of another site whose DNS points at the device
// (DNS rebinding): it must not get the device's pages or forms.
func hostAllowed(host, hostname string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return false
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		return true
	}
	if host == "localhost" {
		return true
	}
	hostname = strings.ToLower(hostname)
	if hostname == "" {
		return false
	}
	if host == hostname {
		return true
	}
	for _, s := range localNameSuffixes() {
		if host == hostname+s {
			return true
		}
	}
	return false
}

// hostGuard answers 421 Misdirected Request to requests whose Host header
// does not name this device (DNS rebinding), before any page or form.
func (h *Handler) hostGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if hh, _, err := net.SplitHostPort(host); err == nil {
			host = hh
		}
		if !hostAllowed(host, h.hub.Snapshot().Device.Hostname) {
			h.refused.note("request for another host name refused (DNS rebinding?)", "client", clientKey(r), "host", text.Elide(host, 64))
			http.Error(w, "This device answers only to its own addresses and names.", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
