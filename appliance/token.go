package appliance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenPrefix starts every FlipSight bot token.
const TokenPrefix = "fsbm_"

// Token length limits. The service shows "a long string starting with
// fsbm_"; the bounds only catch a paste of the wrong thing or a truncated one.
const (
	MinTokenLen = 20
	MaxTokenLen = 512
)

// TokenFileName is the token's file name in the store directory.
const TokenFileName = "fs_bot_token"

// ErrNoToken means no token is stored.
var ErrNoToken = errors.New("no token stored")

// ValidateToken checks the form of a pasted token (prefix, length, allowed
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

// NormalizeToken trims the white space a paste brings along.
func NormalizeToken(tok string) string { return strings.TrimSpace(tok) }

// TokenStore keeps the bot token in one file (mode 0600) in Dir, which is
// $HOME on the device (/perm/home/flipbot). Writes are atomic: a power cut
// at any point leaves the old or the new token, never a torn one. It holds no
// state besides the directory, so concurrent use is safe as far as the file
// system's rename is.
type TokenStore struct {
	// Dir is the directory holding the token file; created 0700 on Save.
	Dir string
	ops fileOps
}

// NewTokenStore returns a store in dir.
func NewTokenStore(dir string) *TokenStore {
	return &TokenStore{Dir: dir, ops: osFileOps()}
}

func (s *TokenStore) path() string { return filepath.Join(s.Dir, TokenFileName) }

// Load returns the stored token, or ErrNoToken. A stored file whose content
// is not a valid token (hand-edited, damaged) is reported as an error.
func (s *TokenStore) Load() (string, error) {
	b, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoToken
	}
	if err != nil {
		return "", fmt.Errorf("read token file %s: %w", s.path(), err)
	}
	tok := NormalizeToken(string(b))
	if tok == "" {
		return "", ErrNoToken
	}
	if err := ValidateToken(tok); err != nil {
		return "", fmt.Errorf("token file %s is damaged: %w", s.path(), err)
	}
	return tok, nil
}

// Save stores tok atomically with mode 0600, after checking its form.
func (s *TokenStore) Save(tok string) error {
	if err := ValidateToken(tok); err != nil {
		return fmt.Errorf("save token: %w", err)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("save token: create %s: %w", s.Dir, err)
	}
	cleanTemps(s.Dir, TokenFileName)
	if err := s.ops.writeFileAtomic(s.path(), []byte(tok+"\n"), 0o600); err != nil {
		return fmt.Errorf("save token: %w", err)
	}
	return nil
}

// Remove deletes the stored token (no error when there is none) and makes
// the removal durable.
func (s *TokenStore) Remove() error {
	err := os.Remove(s.path())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove token: %w", err)
	}
	cleanTemps(s.Dir, TokenFileName)
	if err == nil {
		if err := syncDir(s.Dir); err != nil {
			return fmt.Errorf("remove token: %w", err)
		}
	}
	return nil
}
