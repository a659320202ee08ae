package proc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"engine", []string{"engine"}},
		{"  python3   my_adapter.py  ", []string{"python3", "my_adapter.py"}},
		{`"/opt/my engine/bin" -l 10`, []string{"/opt/my engine/bin", "-l", "10"}},
		{`'it''s' x`, []string{"its", "x"}},
		{`a\ b c`, []string{"a b", "c"}},
		{`"say \"hi\" \n"`, []string{`say "hi" \n`}},
		{`'$HOME' | >out`, []string{"$HOME", "|", ">out"}},
		{`"" x`, []string{"", "x"}},
		{"a\tb\nc", []string{"a", "b", "c"}},
	}
	for _, tc := range tests {
		got, err := SplitCommand(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "  ", `"open`, `'open`, `trailing\`} {
		_, err := SplitCommand(bad)
		assert.Error(t, err, bad)
	}
}

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{`a "b c" 'd'`, `x\ y`, `"\""`, `'`, ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitCommand(s)
		if err == nil && len(words) == 0 {
			t.Fatalf("%q: no words and no error", s)
		}
	})
}
