package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
)

// CSRFCookie is the cookie holding a random browser secret; every form
// carries HMAC(server key, secret) in its csrf field, which a page on
// another site can neither read nor forge. The cookie is SameSite=Strict
// on top. It also tells browsers apart for their notices (flash.go).
const CSRFCookie = "flipbot_csrf"

// csrfField is the forms' field holding the token.
const csrfField = "csrf"

// csrfGuard issues and checks CSRF tokens. key is fixed for the process.
type csrfGuard struct {
	key []byte
}

func newCSRFGuard() (*csrfGuard, error) {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("csrf key: %w", err)
	}
	return &csrfGuard{key: k}, nil
}

func (g *csrfGuard) mac(secret string) string {
	m := hmac.New(sha256.New, g.key)
	m.Write([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// token returns the form token for r, setting the cookie on w when r has none.
func (g *csrfGuard) token(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(CSRFCookie); err == nil && len(c.Value) >= 20 {
		return g.mac(c.Value)
	}
	b := make([]byte, 24)
	rand.Read(b) // never fails (crypto/rand panics instead since Go 1.24)
	secret := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name: CSRFCookie, Value: secret, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	return g.mac(secret)
}

// check reports whether the posted form of r carries the token matching its cookie.
func (g *csrfGuard) check(r *http.Request) bool {
	c, err := r.Cookie(CSRFCookie)
	if err != nil || c.Value == "" {
		return false
	}
	got := r.PostFormValue(csrfField)
	return got != "" && hmac.Equal([]byte(got), []byte(g.mac(c.Value)))
}
