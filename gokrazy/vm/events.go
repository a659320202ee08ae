package vm

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// ReadEvents reads a server-sent event stream (gokrazy's /log API) and
// passes the data of each event to onLine, until r ends. Lines longer than
// 64 KiB end the stream with an error.
func ReadEvents(r io.Reader, onLine func(string)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			onLine(strings.TrimPrefix(data, " "))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("log stream: %w", err)
	}
	return nil
}

var pairingRE = regexp.MustCompile(`\bpairing_code=(\d{6})\b`)

// PairingCode returns the pairing code of a flipbot log line announcing
// that setup is needed, or "".
func PairingCode(line string) string {
	if m := pairingRE.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}
