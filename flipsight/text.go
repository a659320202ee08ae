package flipsight

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Text is a string field that the service documents as a string but that
// a server might send as a number (player ids): it decodes a JSON string,
// number or null, and encodes as a JSON string. Fields the bot does not
// act on use it so that such a difference never fails a whole poll.
type Text string

// UnmarshalJSON accepts a string, a number (kept as written) or null.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0:
		return fmt.Errorf("text: empty value")
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("text: %w", err)
		}
		*t = Text(s)
	case string(b) == "null":
		*t = ""
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("text: %w", err)
		}
		*t = Text(n.String())
	default:
		return fmt.Errorf("text: want a string, got %.20s", b)
	}
	return nil
}
