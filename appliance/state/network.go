package state

import (
	"net/url"
	"strings"
)

// TextUnreachable is the state's text for people while the bot cannot
// reach FlipSight but the device's network is up (Device.NetworkUp): the
// state stays KindNoNetwork (the same LEDs and screen), its words differ.
const TextUnreachable = "FlipSight unreachable"

// maxCauseInput bounds the error text NetworkCause looks at.
const maxCauseInput = 4 << 10

// Unreachable reports whether the bot cannot reach FlipSight while the
// device's own network is up (an address and a default route): the
// FlipSight host, its name or the way to it fail, not the device's link.
func (s Status) Unreachable() bool {
	return s.Kind == KindNoNetwork && s.Device.NetworkUp
}

// stateText is the state as people read it: Kind.Text, except that a
// KindNoNetwork with the device's network up reads TextUnreachable.
func (s Status) stateText() string {
	if s.Unreachable() {
		return TextUnreachable
	}
	return s.Kind.Text()
}

// NetworkSentence says to a person why the bot is offline in
// KindNoNetwork, from the facts and the error's cause (NetworkCause of
// Detail); "" in any other state. The raw error stays in Detail.
func (s Status) NetworkSentence() string {
	if s.Kind != KindNoNetwork {
		return ""
	}
	cause := NetworkCause(s.Detail)
	if s.Device.NetworkUp {
		return "FlipSight cannot be reached (" + cause + "); the device's network is up."
	}
	return "The device has no network (no address or no default route), so FlipSight cannot be reached (" +
		cause + "). Check the cable or the Wi-Fi and the router."
}

// NetworkCause turns the text of an error reaching FlipSight (a Go
// net/http error, such as `Get "https://othelloclub.com/api/v1/…": dial
// tcp 203.0.113.5:443: connect: connection refused`) into a short cause a
// person reads, such as "connection refused by othelloclub.com". Any text
// gives a cause; only the first few kB are looked at.
func NetworkCause(msg string) string {
	if len(msg) > maxCauseInput {
		msg = msg[:maxCauseInput]
	}
	host := causeHost(msg)
	low := strings.ToLower(msg)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(low, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("no such host"):
		return "the name " + host + " does not resolve"
	case has("server misbehaving", "lookup "):
		return "the name server does not answer for " + host
	case has("connection refused"):
		return "connection refused by " + host
	case has("network is unreachable", "no route to host", "host is down"):
		return "no route to " + host
	case has("i/o timeout", "deadline exceeded", "timeout"):
		return host + " does not answer (timed out)"
	case has("connection reset"):
		return "the connection to " + host + " was reset"
	case has("x509", "tls:", "certificate"):
		return "the secure connection to " + host + " failed (TLS certificate or handshake)"
	case has("eof", "broken pipe"):
		return host + " closed the connection"
	}
	return "the connection to " + host + " failed"
}

// causeHost finds the host an error names: the quoted URL of a failed
// request, else the name of a failed lookup, else "the server".
func causeHost(msg string) string {
	if i := strings.Index(msg, `"http`); i >= 0 {
		rest := msg[i+1:]
		if j := strings.IndexByte(rest, '"'); j > 0 {
			if u, err := url.Parse(rest[:j]); err == nil && printableHost(u.Hostname()) {
				return u.Hostname()
			}
		}
	}
	if i := strings.Index(msg, "lookup "); i >= 0 {
		name, _, _ := strings.Cut(msg[i+len("lookup "):], " ")
		name = strings.TrimSuffix(name, ":")
		if printableHost(name) {
			return name
		}
	}
	return "the server"
}

// printableHost reports whether h looks like a host name or address: a
// short run of letters, digits, dots, hyphens and colons.
func printableHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, c := range h {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':'
		if !ok {
			return false
		}
	}
	return true
}
