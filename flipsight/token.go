package flipsight

import (
	"fmt"
	"log/slog"
	"strings"
)

// Token is a bot's secret credential (fsbm_…). Its value is reachable only
// through the client, which puts it in the Authorization header; every way
// of printing it (String, GoString, slog's LogValue, JSON, text) yields
// "[redacted]" so that it cannot leak into logs or errors by accident.
type Token struct {
	value string
}

const redacted = "[redacted]"

// NewToken validates s (surrounding white space trimmed, as pasted tokens
// often end in a newline) and returns it as a Token. The error never
// contains s.
func NewToken(s string) (Token, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Token{}, ErrNoToken
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r > 0x7e {
			return Token{}, fmt.Errorf("flipsight: token contains a space, control or non-ASCII character")
		}
	}
	return Token{value: s}, nil
}

// IsZero reports whether the token is empty.
func (t Token) IsZero() bool { return t.value == "" }

// Equal reports whether two tokens are the same secret.
func (t Token) Equal(u Token) bool { return t.value == u.value }

// String returns "[redacted]".
func (t Token) String() string { return redacted }

// GoString returns "[redacted]" (for %#v).
func (t Token) GoString() string { return redacted }

// LogValue makes slog print "[redacted]".
func (t Token) LogValue() slog.Value { return slog.StringValue(redacted) }

// MarshalText returns "[redacted]", so JSON and text encoders never see the
// secret.
func (t Token) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// Reveal returns the secret itself, for the few places that must keep it
// (the appliance's token file, an SD card image). Never log it, show it or
// put it in an error; everything else holds the Token.
func (t Token) Reveal() string { return t.value }

// bearer returns the Authorization header value. Only the client calls it.
func (t Token) bearer() string { return "Bearer " + t.value }
