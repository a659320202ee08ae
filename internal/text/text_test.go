package text

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"abc", 0, ""},
		{"abc", -1, ""},
		{"héllo", 2, "hé"},     // é is two bytes: kept whole
		{"日本語です", 3, "日本語"},    // three bytes a rune
		{"日本", 2, "日本"},        // 6 bytes, 2 runes: not cut
		{"a\xffb", 2, "a\xff"}, // an invalid byte counts as one rune
	} {
		got := Clip(c.s, c.max)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
		if utf8.ValidString(c.s) && !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q splits a rune", c.s, c.max, got)
		}
	}
}

func TestElide(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"日本語です", 3, "日本語…"},
		{"日本", 2, "日本"},
	} {
		if got := Elide(c.s, c.max); got != c.want {
			t.Errorf("Elide(%q, %d) = %q, want %q", c.s, c.max, got, c.want)
		}
	}
}
