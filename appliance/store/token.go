package store

import (
	"errors"
	"fmt"
	"strings"

	"flipbot.dev/flipbot/flipsight"
)

// TokenPrefix starts every FlipSight bot token.
const TokenPrefix = "fsbm_"

// Token length limits. The service shows "a long string starting with
// fsbm_"; the bounds only catch a paste of the wrong thing or a truncated one.
const (
	MinTokenLen = 20
	MaxTokenLen = 512
)

// MaxTokenFileBytes is the largest token file read: a token of
// MaxTokenLen and the white space an editor may add.
const MaxTokenFileBytes = 4 << 10

// TokenFileName is the token's file name in the store directory.
const TokenFileName = "fs_bot_token"

// ErrNoToken means no token is stored.
var ErrNoToken = errors.New("no token stored")

// ValidateToken checks the form of a bot token (prefix, length, allowed
// characters). The error never contains the token.
func ValidateToken(tok string) error {
	if !strings.HasPrefix(tok, TokenPrefix) {
		return fmt.Errorf("a bot token starts with %q", TokenPrefix)
	}
	if len(tok) < MinTokenLen {
		return fmt.Errorf("the token is too short (%d characters; a bot token is at least %d): was it copied whole?", len(tok), MinTokenLen)
	}
	if len(tok) > MaxTokenLen {
		return fmt.Errorf("the token is too long (%d characters; at most %d)", len(tok), MaxTokenLen)
	}
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c <= ' ' || c >= 0x7f {
			return fmt.Errorf("the token holds a character that is not printable ASCII at position %d", i+1)
		}
	}
	return nil
}

// ParseToken returns a pasted or stored token, without the white space a
// paste brings along, once its form is checked (ValidateToken). From here
// on it is a flipsight.Token, which never prints. The error never contains
// the token.
func ParseToken(s string) (flipsight.Token, error) {
	s = strings.TrimSpace(s)
	if err := ValidateToken(s); err != nil {
		return flipsight.Token{}, err
	}
	t, err := flipsight.NewToken(s)
	if err != nil {
		return flipsight.Token{}, fmt.Errorf("not a token: %w", err)
	}
	return t, nil
}

// EncodeToken returns the content of a token file for t: the token and a
// newline, after checking its form. The appliance's token file and a
// pre-provisioned card image are written from it.
func EncodeToken(t flipsight.Token) ([]byte, error) {
	if err := ValidateToken(t.Reveal()); err != nil {
		return nil, err
	}
	return []byte(t.Reveal() + "\n"), nil
}

// decodeToken reads a token file: ErrNoToken when it holds nothing, an
// error when its content is not a token (hand-edited, damaged).
func decodeToken(b []byte) (flipsight.Token, error) {
	if strings.TrimSpace(string(b)) == "" {
		return flipsight.Token{}, ErrNoToken
	}
	t, err := ParseToken(string(b))
	if err != nil {
		return flipsight.Token{}, fmt.Errorf("damaged: %w", err)
	}
	return t, nil
}

// NewTokenFile returns the file keeping the bot token in dir, which is
// $HOME on the device (/perm/home/flipbot): TokenFileName, mode 0600,
// written atomically. Load's error wraps ErrNoToken when none is stored.
func NewTokenFile(dir string) *File[flipsight.Token] {
	return NewFile(dir, Format[flipsight.Token]{
		Name: TokenFileName, What: "token",
		Encode: EncodeToken, Decode: decodeToken, Missing: ErrNoToken,
		MaxBytes: MaxTokenFileBytes,
	})
}
