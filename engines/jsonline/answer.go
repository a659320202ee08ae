package jsonline

import (
	"bytes"
	"encoding/json"
	"fmt"

	"flipbot.dev/flipbot/engines/othello"
)

// ParseAnswer reads one line of the engine's stdout on a board of the given
// size. isAnswer is false for lines to skip: anything that is not a JSON
// object, and objects without a "move" field. For an answer it returns the
// move (a square or othello.Pass; legality is not checked) or an error when
// the move cannot be read.
func ParseAnswer(line []byte, size int) (move int, isAnswer bool, err error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return 0, false, nil
	}
	var a struct {
		Move json.RawMessage `json:"move"`
	}
	if err := json.Unmarshal(line, &a); err != nil {
		return 0, false, nil
	}
	if a.Move == nil {
		return 0, false, nil
	}
	m, err := othello.ParseMoveJSON(a.Move, size)
	if err != nil {
		return 0, true, fmt.Errorf("engine answer: %w", err)
	}
	return m, true, nil
}
