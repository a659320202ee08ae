package othello

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func TestParseSquare(t *testing.T) {
	cases := []struct {
		in   string
		size int
		want int
	}{
		{"a1", 8, 0}, {"h1", 8, 7}, {"a2", 8, 8}, {"h8", 8, 63},
		{"d3", 8, 19}, {"D3", 8, 19}, {"f5", 8, 37}, {" d3 ", 8, 19},
		{"d3", 10, 23}, {"a1", 10, 0}, {"j1", 10, 9}, {"a2", 10, 10},
		{"j10", 10, 99}, {"J0", 10, 99}, {"j0", 10, 99}, {"A10", 10, 90},
	}
	for _, c := range cases {
		got, err := ParseSquare(c.in, c.size)
		require.NoError(t, err, "%q on %d", c.in, c.size)
		assert.Equal(t, c.want, got, "%q on %d", c.in, c.size)
	}
	for _, c := range []struct {
		in   string
		size int
	}{
		{"i1", 8}, {"a9", 8}, {"a0", 8}, {"k1", 10}, {"a11", 10}, {"a01", 10},
		{"", 8}, {"a", 8}, {"1a", 8}, {"a+1", 8}, {"a-1", 8}, {"d3", 9}, {"a100", 10},
	} {
		_, err := ParseSquare(c.in, c.size)
		assert.Error(t, err, "%q on %d", c.in, c.size)
	}
}

func TestSquareName(t *testing.T) {
	assert.Equal(t, "d3", SquareName(19, 8))
	assert.Equal(t, "d3", SquareName(23, 10))
	assert.Equal(t, "j10", SquareName(99, 10))
	assert.Equal(t, "pass", SquareName(Pass, 8))
	assert.Equal(t, "(64)", SquareName(64, 8))
	for _, size := range []int{8, 10} {
		for sq := 0; sq < size*size; sq++ {
			back, err := ParseSquare(SquareName(sq, size), size)
			require.NoError(t, err)
			assert.Equal(t, sq, back)
		}
	}
}

func TestParseMove(t *testing.T) {
	for _, tok := range []string{"-1", "pass", "PASS", "PA", "pa", "PS", "ps", "--"} {
		m, err := ParseMove(tok, 8)
		require.NoError(t, err, tok)
		assert.Equal(t, Pass, m, tok)
	}
	m, err := ParseMove("19", 8)
	require.NoError(t, err)
	assert.Equal(t, 19, m)
	_, err = ParseMove("64", 8)
	assert.Error(t, err)
	m, err = ParseMove("99", 10)
	require.NoError(t, err)
	assert.Equal(t, 99, m)

	for raw, want := range map[string]int{`19`: 19, `"d3"`: 19, `"D3"`: 19, `-1`: Pass, `"pass"`: Pass, `"--"`: Pass} {
		got, err := ParseMoveJSON(json.RawMessage(raw), 8)
		require.NoError(t, err, raw)
		assert.Equal(t, want, got, raw)
	}
	for _, raw := range []string{`64`, `-2`, `1.5`, `null`, `"z9"`, `{}`, `""`, `[19]`} {
		_, err := ParseMoveJSON(json.RawMessage(raw), 8)
		assert.Error(t, err, raw)
	}
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"d3", "J0", "j10", "pass", "--", "-1", "99", "a01", "\"d3\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, size := range []int{8, 10} {
			m, err := ParseMove(s, size)
			if err == nil && m != Pass {
				require.True(t, m >= 0 && m < size*size, "%q → %d", s, m)
				back, err := ParseSquare(SquareName(m, size), size)
				require.NoError(t, err)
				require.Equal(t, m, back)
			}
			m, err = ParseMoveJSON(json.RawMessage(s), size)
			if err == nil {
				require.True(t, m == Pass || (m >= 0 && m < size*size), "%q → %d", s, m)
			}
		}
	})
}
