package appliance

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"flipbot.dev/flipbot/config"
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
func ParseTokenFile(b []byte) (string, error) {
	if len(b) > maxTokenFile {
		return "", fmt.Errorf("the token file is %d bytes; a token file holds one line of at most %d characters", len(b), MaxTokenLen)
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(b) {
		return "", errors.New("the token file is not text (save it as plain UTF-8 or ASCII text)")
	}
	var lines []string
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r", "\n"), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return "", errors.New("the token file is empty")
	}
	if len(lines) > 1 {
		return "", fmt.Errorf("the token file holds %d lines of text; it must hold only the token", len(lines))
	}
	tok := lines[0]
	if k, v, ok := strings.Cut(tok, "="); ok {
		switch k = strings.TrimSpace(k); {
		case strings.EqualFold(k, "token"), strings.EqualFold(k, config.TokenEnv):
			tok = strings.Trim(strings.TrimSpace(v), `"'`)
		default:
			return "", errors.New(`the token file holds something other than a token (write only the token, or token=<the token>)`)
		}
	}
	if err := ValidateToken(tok); err != nil {
		return "", fmt.Errorf("the token file: %w", err)
	}
	return tok, nil
}
