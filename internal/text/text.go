// Package text holds the string helpers shared across flipbot: cutting
// strings from outside (names, engine lines, host headers) to a limit
// without splitting a UTF-8 sequence.
//
// One file, text.go ([Clip], [Elide]). A leaf: it imports nothing of the
// module, and any package may import it.
package text

// Clip returns s cut to at most max runes (characters), at a rune
// boundary, so a multi-byte UTF-8 sequence is never split; s itself when
// it is no longer, "" when max <= 0. A byte that is not valid UTF-8 counts
// as one rune and is kept as it is. Use it for limits on the wire (such as
// flipsight.MaxEnvironmentLen), where nothing may be added.
func Clip(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if len(s) <= max { // never more runes than bytes
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// Elide is Clip for log lines and error messages: s cut to at most max
// runes with "…" appended when anything was cut, so the reader sees that
// it was.
func Elide(s string, max int) string {
	if c := Clip(s, max); len(c) < len(s) {
		return c + "…"
	}
	return s
}
