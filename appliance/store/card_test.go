package store

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTokenFile(t *testing.T) {
	const tok = "fsbm_0123456789abcdefghij"
	good := []struct{ name, in string }{
		{"bare", tok},
		{"newline", tok + "\n"},
		{"crlf", tok + "\r\n"},
		{"cr", tok + "\r"},
		{"spaces and blank lines", "\n  \t" + tok + "  \r\n\r\n"},
		{"bom", "\xef\xbb\xbf" + tok + "\r\n"},
		{"token= prefix", "token=" + tok + "\n"},
		{"spaced prefix", "token = " + tok},
		{"quoted", `token="` + tok + `"`},
		{"env style", "FS_BOT_TOKEN=" + tok},
		{"bom and prefix", "\xef\xbb\xbftoken=" + tok + "\r\n"},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseTokenFile([]byte(c.in))
			require.NoError(t, err)
			assert.Equal(t, tok, got.Reveal())
		})
	}
	bad := []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"blank", " \r\n\t", "empty"},
		{"two lines", tok + "\n" + tok, "2 lines"},
		{"other key", "password=" + tok, "something other"},
		{"no prefix", "abcdefghijklmnopqrstuvwxyz", "starts with"},
		{"short", "fsbm_abc", "too short"},
		{"inner space", "fsbm_0123456789 abcdefghij", "not printable"},
		{"binary", "\xff\xfe" + tok, "not text"},
		{"utf16", "\xff\xfef\x00s\x00", "not text"},
		{"huge", strings.Repeat("x", 5000), "bytes"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseTokenFile([]byte(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), "0123456789abcdefghij", "the error must not contain the token")
		})
	}
}

func FuzzParseTokenFile(f *testing.F) {
	for _, s := range []string{"fsbm_0123456789abcdefghij", "\xef\xbb\xbftoken=fsbm_0123456789abcdefghij\r\n", "a=b\nc", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tok, err := ParseTokenFile(b)
		if err != nil {
			if len(b) >= MinTokenLen {
				// No error may repeat a token-like run of the input.
				for _, field := range strings.Fields(string(b)) {
					if strings.HasPrefix(field, TokenPrefix) && len(field) >= MinTokenLen {
						assert.NotContains(t, err.Error(), field)
					}
				}
			}
			return
		}
		require.NoError(t, ValidateToken(tok.Reveal()))
		assert.Contains(t, string(b), tok.Reveal())
	})
}
