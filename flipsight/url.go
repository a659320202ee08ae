package flipsight

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// Default service addresses.
const (
	DefaultAPIURL    = "https://othelloclub.com/flipsight/bot_match_api.php"
	DefaultStreamURL = "https://othelloclub.com/flipsight_api/bot-stream"
	// StreamPath is the stream's path on the API's host, used to derive the
	// stream URL from a non-default API URL.
	StreamPath = "/flipsight_api/bot-stream"
)

// CheckURL validates an address the token will be sent to: https, or http
// only when the host is loopback (127.0.0.0/8, ::1, localhost); a host is
// required; user info is refused. Errors wrap ErrRefusedURL.
func CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %q does not parse", ErrRefusedURL, raw)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %s: user info in the URL is not allowed", ErrRefusedURL, u.Redacted())
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("%w: %q has no host", ErrRefusedURL, raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !IsLoopbackHost(u.Hostname()) {
			return nil, fmt.Errorf("%w: %s: plain http only for loopback hosts; use https", ErrRefusedURL, u.Redacted())
		}
	default:
		return nil, fmt.Errorf("%w: %s: scheme must be https", ErrRefusedURL, u.Redacted())
	}
	return u, nil
}

// IsLoopbackHost reports whether host (no port) is localhost, an address in
// 127.0.0.0/8, or ::1.
func IsLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(host), ".")
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// StreamURLFor returns the stream URL to use with apiURL: streamURL when
// given, else DefaultStreamURL for the default API, else StreamPath on the
// API's scheme and host. It checks both with CheckURL and refuses a stream
// on another host than the API, because the token goes to both.
func StreamURLFor(apiURL, streamURL string) (api, stream *url.URL, err error) {
	api, err = CheckURL(apiURL)
	if err != nil {
		return nil, nil, fmt.Errorf("api URL: %w", err)
	}
	if streamURL == "" {
		if apiURL == DefaultAPIURL {
			streamURL = DefaultStreamURL
		} else {
			streamURL = (&url.URL{Scheme: api.Scheme, Host: api.Host, Path: StreamPath}).String()
		}
	}
	stream, err = CheckURL(streamURL)
	if err != nil {
		return nil, nil, fmt.Errorf("stream URL: %w", err)
	}
	if canonicalHost(stream.Hostname()) != canonicalHost(api.Hostname()) {
		return nil, nil, fmt.Errorf("%w: stream host %q is not the API host %q (the token is sent to both)",
			ErrRefusedURL, stream.Hostname(), api.Hostname())
	}
	return api, stream, nil
}

func canonicalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}
