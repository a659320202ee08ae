package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"flipbot.dev/flipbot/engines/othello"
)

// maxLine bounds one request line on stdin.
const maxLine = 1 << 20

// runLegal answers each engine request on stdin with the legal moves that
// the rules give for its board, colour, mode, size, blocked squares and
// placed counts (the request's own legal_moves are ignored). A bad line gets
// {"error":"…"} on its line and the command goes on.
func runLegal(_ []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sc := bufio.NewScanner(stdin)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		_ = enc.Encode(legalAnswer(line))
		if err := w.Flush(); err != nil {
			return 1
		}
	}
	if err := sc.Err(); err != nil {
		_ = enc.Encode(map[string]string{"error": "read stdin: " + err.Error()})
		_ = w.Flush()
		return 1
	}
	return 0
}

// legalAnswer is the output object for one input line.
func legalAnswer(line []byte) any {
	req, err := othello.ParseEngineRequest(line)
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	pos, err := req.Position()
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	return map[string][]int{"legal_moves": pos.LegalMoves()}
}
