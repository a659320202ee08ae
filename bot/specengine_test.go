package bot

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"

	"flipbot.dev/flipbot/engines/othello"
)

// The spec-checking engine: the test binary run as an --engine program
// (os.Args[1] == specEngineArg) that checks every request line against the
// spec's field definitions (エンジンへの要求のフィールド) and writes one JSON
// record a request, with the violations it found, to the file os.Args[2].
// os.Args[3] is the connector's --max-think-seconds in ms, for budget_ms.

const specEngineArg = "spec-engine"

func TestMain(m *testing.M) {
	if len(os.Args) >= 4 && os.Args[1] == specEngineArg {
		os.Exit(specEngineMain(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

// specRecord is what the spec engine saw of one request.
type specRecord struct {
	Match      int64    `json:"match"`
	Leg        int      `json:"leg"`
	Revision   int64    `json:"revision"`
	Legal      int      `json:"legal"`
	Remaining  int64    `json:"remaining_ms"`
	Budget     int64    `json:"budget_ms"`
	Violations []string `json:"violations,omitempty"`
}

func specEngineMain(path, capArg string) int {
	capMS, err := strconv.ParseInt(capArg, 10, 64)
	if err != nil {
		return 2
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return 2
	}
	defer f.Close()
	seen := map[[3]int64]bool{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for sc.Scan() {
		rec, move := checkSpecRequest(sc.Bytes(), capMS, seen)
		b, _ := json.Marshal(rec)
		_, _ = f.Write(append(b, '\n'))
		fmt.Fprintf(out, "{\"move\":%d}\n", move)
		_ = out.Flush()
	}
	return 0
}

// specFields are the request's fields, all of which the spec defines.
var specFields = []string{"board", "color", "legal_moves", "game_mode", "board_size", "blocked_squares", "placed",
	"remaining_ms", "match_id", "leg", "revision", "history", "round_no", "room_created_at", "budget_ms"}

// checkSpecRequest checks one request line and returns what it saw and the
// move to answer (the first legal move, or -1).
func checkSpecRequest(line []byte, capMS int64, seen map[[3]int64]bool) (specRecord, int) {
	var rec specRecord
	bad := func(format string, a ...any) { rec.Violations = append(rec.Violations, fmt.Sprintf(format, a...)) }
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		bad("not a JSON object: %v", err)
		return rec, -1
	}
	for _, k := range specFields {
		if _, ok := raw[k]; !ok {
			bad("field %s missing", k)
		}
	}
	if len(raw) != len(specFields) {
		bad("%d fields, the spec defines %d", len(raw), len(specFields))
	}
	r, err := othello.ParseEngineRequest(line)
	if err != nil {
		bad("%v", err)
		return rec, -1
	}
	rec.Match, rec.Leg, rec.Revision, rec.Legal = r.MatchID, r.Leg, r.Revision, len(r.LegalMoves)
	rec.Remaining, rec.Budget = r.RemainingMS, r.BudgetMS
	k := [3]int64{r.MatchID, int64(r.Leg), r.Revision}
	if seen[k] {
		bad("a second request for (match, leg, revision) %v", k)
	}
	seen[k] = true
	if r.MatchID == 0 || (r.Leg != 0 && r.Leg != 1) || r.Revision < 0 {
		bad("match_id %d leg %d revision %d", r.MatchID, r.Leg, r.Revision)
	}
	if r.RemainingMS < 0 {
		bad("remaining_ms %d", r.RemainingMS)
	}
	want := r.RemainingMS - 750
	if capMS > 0 {
		want = min(want, capMS)
	}
	if r.BudgetMS != max(want, 0) {
		bad("budget_ms %d, the spec's min(--max-think-seconds, remaining − 0.75 s) is %d", r.BudgetMS, want)
	}
	if r.MatchID > 0 && (string(raw["round_no"]) != "null" || string(raw["room_created_at"]) != "null") {
		bad("round_no %s room_created_at %s in a bot match", raw["round_no"], raw["room_created_at"])
	}
	var hist []json.RawMessage
	if err := json.Unmarshal(r.History, &hist); err != nil || hist == nil {
		bad("history %s is not an array", r.History)
	}
	if r.Color != 1 && r.Color != 2 {
		bad("color %d", r.Color)
	}
	pos, err := r.Position()
	if err != nil {
		bad("%v", err)
		return rec, -1
	}
	if got := pos.Mode.BlockedSquares(); !slices.Equal(sorted(r.BlockedSquares), sorted(got)) {
		bad("blocked_squares %v, the mode's are %v", r.BlockedSquares, got)
	}
	legal := pos.LegalMoves()
	if !slices.Equal(sorted(r.LegalMoves), sorted(legal)) {
		bad("legal_moves %v, the rules' %v", r.LegalMoves, legal)
	}
	if len(r.LegalMoves) == 0 {
		return rec, -1
	}
	return rec, r.LegalMoves[0]
}

func sorted(s []int) []int {
	out := slices.Clone(s)
	slices.Sort(out)
	if out == nil {
		out = []int{}
	}
	return out
}
