package jsonline

import (
	"testing"

	"flipbot.dev/flipbot/engines/othello"
)

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		line     string
		move     int
		isAnswer bool
		err      bool
	}{
		{`{"move": 19}`, 19, true, false},
		{` {"move":"d3"} `, 19, true, false},
		{`{"move":"D3","score":2}`, 19, true, false},
		{`{"move": -1}`, othello.Pass, true, false},
		{`{"move": "pass"}`, othello.Pass, true, false},
		{`{"move": 64}`, 0, true, true},
		{`{"move": "z9"}`, 0, true, true},
		{`{"move": 1.5}`, 0, true, true},
		{`{"move": null}`, 0, true, true},
		{`{"info": 1}`, 0, false, false},
		{`hello`, 0, false, false},
		{`{broken`, 0, false, false},
		{``, 0, false, false},
		{`[1]`, 0, false, false},
	}
	for _, tc := range tests {
		m, isAnswer, err := ParseAnswer([]byte(tc.line), 8)
		if isAnswer != tc.isAnswer || (err != nil) != tc.err || (!tc.err && m != tc.move) {
			t.Errorf("ParseAnswer(%q) = %d, %v, %v; want %d, %v, err %v", tc.line, m, isAnswer, err, tc.move, tc.isAnswer, tc.err)
		}
	}
}

func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{`{"move": 19}`, `{"move":"d3"}`, `{"move":-1}`, `x`, `{"move":"j10"}`, `{"move":[1]}`} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, line string, size int) {
		if size != 10 {
			size = 8
		}
		m, isAnswer, err := ParseAnswer([]byte(line), size)
		if err != nil && !isAnswer {
			t.Fatalf("error for a non-answer: %v", err)
		}
		if isAnswer && err == nil && m != othello.Pass && (m < 0 || m >= size*size) {
			t.Fatalf("%q: move %d off the board", line, m)
		}
	})
}
