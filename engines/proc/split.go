package proc

import (
	"errors"
	"fmt"
	"strings"
)

// ErrEmptyCommand is returned by [SplitCommand] for a command with no words.
var ErrEmptyCommand = errors.New("empty command")

// SplitCommand splits a command line into words like a POSIX shell does
// for words and quotes, without any expansion: words are separated by
// unquoted blanks; 'single quotes' keep everything literally; "double
// quotes" keep everything except that a backslash escapes ", \, $ and `;
// outside quotes a backslash escapes the next character. Variables, globs,
// pipes and redirections are not interpreted: a word such as `|` or `$HOME`
// is passed on literally.
func SplitCommand(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	const (
		plain = iota
		single
		double
	)
	state := plain
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch state {
		case plain:
			switch {
			case r == ' ' || r == '\t' || r == '\n' || r == '\r':
				if inWord {
					words = append(words, cur.String())
					cur.Reset()
					inWord = false
				}
			case r == '\'':
				state, inWord = single, true
			case r == '"':
				state, inWord = double, true
			case r == '\\':
				if i+1 >= len(rs) {
					return nil, fmt.Errorf("split command: trailing backslash")
				}
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
					inWord = true
				}
			default:
				cur.WriteRune(r)
				inWord = true
			}
		case single:
			if r == '\'' {
				state = plain
			} else {
				cur.WriteRune(r)
			}
		case double:
			switch {
			case r == '"':
				state = plain
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[i+1]):
				i++
				if rs[i] != '\n' {
					cur.WriteRune(rs[i])
				}
			default:
				cur.WriteRune(r)
			}
		}
	}
	if state != plain {
		return nil, fmt.Errorf("split command: unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, ErrEmptyCommand
	}
	return words, nil
}
