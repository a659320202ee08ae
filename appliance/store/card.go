package store

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"flipbot.dev/flipbot/appliance/bootfs"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/fat"
)

// BootTokenFileName is the token file an owner may put on the SD card's
// FAT boot partition, and that `make image TOKEN_FILE=…` reads.
const BootTokenFileName = "flipbot-token.txt"

// maxTokenFile bounds what ParseTokenFile reads: a token and some white
// space, not a whole file dropped there by mistake.
const maxTokenFile = 4096

// ParseTokenFile extracts the bot token from the content of a token file.
// It tolerates what editors on any laptop produce: a UTF-8 byte-order mark,
// CRLF or CR line ends, surrounding white space and blank lines, and a
// "token=" prefix (also "FS_BOT_TOKEN="). Anything else, such as two tokens
// or other text, is refused. Errors never contain the token.
func ParseTokenFile(b []byte) (flipsight.Token, error) {
	if len(b) > maxTokenFile {
		return flipsight.Token{}, fmt.Errorf("the token file is %d bytes; a token file holds one line of at most %d characters", len(b), MaxTokenLen)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		return flipsight.Token{}, errors.New("the token file is not text (save it as plain UTF-8 or ASCII text)")
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return flipsight.Token{}, errors.New("the token file is empty")
	}
	if len(lines) > 1 {
		return flipsight.Token{}, fmt.Errorf("the token file holds %d lines of text; it must hold only the token", len(lines))
	}
	tok := lines[0]
	if k, v, ok := strings.Cut(tok, "="); ok {
		switch k = strings.TrimSpace(k); {
		case strings.EqualFold(k, "token"), strings.EqualFold(k, config.TokenEnv):
			tok = strings.Trim(strings.TrimSpace(v), `"'`)
		default:
			return flipsight.Token{}, errors.New(`the token file holds something other than a token (write only the token, or token=<the token>)`)
		}
	}
	t, err := ParseToken(tok)
	if err != nil {
		return flipsight.Token{}, fmt.Errorf("the token file: %w", err)
	}
	return t, nil
}

// CardTokenSource reads the token file an owner put on the SD card's FAT
// boot partition (BootTokenFileName).
type CardTokenSource interface {
	// ReadCardToken returns the file's content and modification time; ok
	// is false when the card holds no such file.
	ReadCardToken() (data []byte, mod time.Time, ok bool, err error)
}

// BootPartition is the CardTokenSource of a FAT file system: the boot
// partition of the disk the device booted from when Path is empty, else the
// device or image file at Path. It only ever opens it read-only.
type BootPartition struct {
	Path string
}

// ReadCardToken implements CardTokenSource.
func (b BootPartition) ReadCardToken() ([]byte, time.Time, bool, error) {
	dev := b.Path
	if dev == "" {
		d, err := bootfs.Host{Root: "/"}.BootPartition()
		if err != nil {
			return nil, time.Time{}, false, fmt.Errorf("find the boot partition: %w", err)
		}
		dev = d
	}
	f, err := bootfs.ReadBootFile(dev, BootTokenFileName, maxTokenFile)
	switch {
	case errors.Is(err, fat.ErrNotExist):
		return nil, time.Time{}, false, nil
	case errors.Is(err, fat.ErrTooLarge):
		return nil, f.ModTime, true, fmt.Errorf("%s is too large to hold a token", BootTokenFileName)
	case err != nil:
		return nil, time.Time{}, false, err
	}
	return f.Data, f.ModTime, true, nil
}
