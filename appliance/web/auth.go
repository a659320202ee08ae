package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"

	"flipbot.dev/flipbot/appliance/store"
)

// AdminUser is the HTTP Basic user name of the admin password, the same as
// gokrazy's web UI.
const AdminUser = "gokrazy"

// errNoPassword means no admin password is configured, so admin pages are shut.
var errNoPassword = errors.New("no admin password is configured")

// maxPasswordFile is the largest admin password file read (gokrazy
// writes a password of 20 characters).
const maxPasswordFile = 4 << 10

// passwordSource reads the admin password from the first existing file of a
// list at every check, so a password changed by an update applies at once.
type passwordSource struct {
	files []string
}

func (p passwordSource) password() (string, error) {
	for _, f := range p.files {
		b, err := store.ReadFileLimit(f, maxPasswordFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("read admin password file %s: %w", f, err)
		}
		if pw := strings.TrimSpace(string(b)); pw != "" {
			return pw, nil
		}
	}
	return "", errNoPassword
}

// checkBasic reports whether r carries the admin password. present says
// whether r tried at all (an Authorization header), so that a browser's first
// unauthenticated request is not counted as a wrong password.
func (p passwordSource) checkBasic(r *http.Request) (ok, present bool, err error) {
	user, pass, present := r.BasicAuth()
	want, err := p.password()
	if err != nil {
		return false, present, err
	}
	// Compare hashes so that the comparison takes the same time whatever the lengths.
	a := sha256.Sum256([]byte(user + "\x00" + pass))
	b := sha256.Sum256([]byte(AdminUser + "\x00" + want))
	return present && subtle.ConstantTimeCompare(a[:], b[:]) == 1, present, nil
}

// ungroup drops the spaces and dashes that group a code's digits.
func ungroup(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, s)
}

// codeMatches compares a typed pairing code in constant time, ignoring
// spaces and dashes people type (or the code shows) to group digits.
func codeMatches(typed, code string) bool {
	typed, code = ungroup(typed), ungroup(code)
	if code == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(typed), []byte(code)) == 1
}
