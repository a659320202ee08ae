package web

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCodeMatches(t *testing.T) {
	assert.True(t, codeMatches("123456", "123456"))
	assert.True(t, codeMatches("123 456", "123456"))
	assert.True(t, codeMatches("123-456", "123456"))
	assert.False(t, codeMatches("123457", "123456"))
	assert.False(t, codeMatches("", ""), "no code, no match")
	assert.False(t, codeMatches("12345", "123456"))
}

func FuzzCodeMatches(f *testing.F) {
	f.Add("123456", "123456")
	f.Add("12 34 56", "123456")
	f.Fuzz(func(t *testing.T, typed, code string) {
		if codeMatches(typed, code) && code == "" {
			t.Fatal("matched an empty code")
		}
	})
}
