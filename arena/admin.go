package arena

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/text"
)

// Challenge makes bot from challenge bot to in mode, as agent_challenge
// would (a built-in target starts at once). It returns the match id.
func (s *Server) Challenge(from, to string, mode othello.Mode) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, t := s.botByName(from), s.botByName(to)
	if a == nil || t == nil || a == t {
		return 0, fmt.Errorf("challenge %s → %s: %s", from, to, flipsight.CodeTargetBotNotFound)
	}
	if !a.modes[mode] || !t.modes[mode] {
		return 0, fmt.Errorf("challenge %s → %s: %s", from, to, flipsight.CodeUnsupportedGameMode)
	}
	now := s.nowMS()
	s.advanceAll(now)
	m, aerr := s.newChallenge(a, t, mode, false, now)
	if aerr != nil {
		return 0, fmt.Errorf("challenge %s → %s: %s", from, to, aerr.code)
	}
	return m.id, nil
}

// StartMatch starts a running bot-vs-bot match between two bots at once,
// without a challenge (tournaments). Both must support mode.
func (s *Server) StartMatch(a, b string, mode othello.Mode) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ba, bb := s.botByName(a), s.botByName(b)
	if ba == nil || bb == nil || ba == bb {
		return 0, fmt.Errorf("start match %s vs %s: unknown bot", a, b)
	}
	now := s.nowMS()
	m := &match{
		id: s.nextMatch, botA: ba.id, botB: bb.id, mode: mode,
		clockMS: s.cfg.ClockPerLeg.Milliseconds(), createdMS: now, expiresMS: now,
	}
	s.nextMatch++
	s.matches[m.id] = m
	s.startPair(m, now)
	s.changed(m)
	return m.id, nil
}

// MatchResult is an ended (or running) match as tournaments and the demo
// see it.
type MatchResult struct {
	ID           int64
	Status       string
	FinishReason string
	// Totals per participant (0 = bot_a), Winner 0/1 or -1 for a draw.
	Totals [2]int
	Winner int
	// Ended reports whether the match is over (finished, aborted,
	// rejected, expired); a human room between two of its rounds is not.
	Ended bool
	// Round is a human room's current round (round_no), 0 for bot matches.
	Round int64
}

// Result returns a match's state, false when it is unknown (never made or
// pruned).
func (s *Server) Result(id int64) (MatchResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceAll(s.nowMS())
	m := s.matches[id]
	if m == nil {
		return MatchResult{}, false
	}
	r := MatchResult{ID: id, Status: m.status, Winner: -1}
	if m.reason != nil {
		r.FinishReason = *m.reason
	}
	if m.legs != nil {
		r.Totals = m.totals()
	}
	if m.winner != nil {
		r.Winner = *m.winner
	}
	if m.human {
		r.Round = m.roundNo
	}
	switch {
	case m.status == flipsight.MatchPending, m.status == flipsight.MatchRunning:
	case m.human && m.status == flipsight.MatchFinished && m.roundNo < m.rounds:
		// Between two rounds of the room.
	default:
		r.Ended = true
	}
	return r, true
}

// MatchJSON returns the match object of id as agent_poll would list it.
func (s *Server) MatchJSON(id int64) (flipsight.Match, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.matches[id]
	if m == nil {
		return flipsight.Match{}, false
	}
	return s.wireMatch(m, s.nowMS()), true
}

// adminHandler returns the handler of the test hooks: serveAdmin behind
// Go's cross-origin protection, which refuses a POST whose Sec-Fetch-Site
// is not same-origin (or none), or, without one, whose Origin is not the
// Host (a page of another site posting to the loopback address).
func (s *Server) adminHandler() http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.log.Warn("cross-origin admin request refused", "path", r.URL.Path,
			"origin", text.Clip(r.Header.Get("Origin"), 64), "sec_fetch_site", text.Clip(r.Header.Get("Sec-Fetch-Site"), 32))
		s.adminError(w, http.StatusForbidden, "cross-origin request refused")
	}))
	return cop.Handler(http.HandlerFunc(s.serveAdmin))
}

// serveAdmin answers the test hooks, for loopback clients only:
//
//	POST /arena/admin/human     {"bot":NAME,"mode":"std","clock_ms":N,"bot_black":bool,"xot":bool}
//	POST /arena/admin/challenge {"from":NAME,"to":NAME,"mode":"std"}
//	POST /arena/admin/tick      applies what is due now
//
// Each answers {"ok":true,"match_id":ID} or {"ok":false,"error":…}. A web
// page in the tester's browser cannot use them: the Host must name this
// server (an IP address, localhost, the machine's host name, or one of
// Config.AdminHosts; else 421, DNS rebinding), a cross-origin POST is
// refused (adminHandler, 403), and the body must be sent as
// application/json (else 415), which no form or simple cross-site request
// can send.
func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.AdminFromAnywhere && !isLoopback(r.RemoteAddr) {
		s.writeError(w, flipsight.CodeAccessDenied)
		return
	}
	if host := hostOnly(r.Host); !hostAllowed(host, s.adminHosts) {
		s.log.Warn("admin request for another host name refused (DNS rebinding?)", "path", r.URL.Path, "host", text.Clip(host, 64))
		s.adminError(w, http.StatusMisdirectedRequest, "this server answers only to its own addresses and names")
		return
	}
	if r.Method != http.MethodPost {
		s.writeError(w, flipsight.CodePOSTRequired)
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		s.adminError(w, http.StatusUnsupportedMediaType, "the body must be sent as application/json")
		return
	}
	var req struct {
		Bot      string `json:"bot"`
		From     string `json:"from"`
		To       string `json:"to"`
		Mode     string `json:"mode"`
		ClockMS  int64  `json:"clock_ms"`
		BotBlack bool   `json:"bot_black"`
		XOT      bool   `json:"xot"`
		Rounds   int    `json:"rounds"`
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err == nil && len(body) > 0 {
		err = json.Unmarshal(body, &req)
	}
	if err != nil {
		s.writeError(w, flipsight.CodeJSONObjectRequired)
		return
	}
	mode := othello.Std
	if req.Mode != "" {
		if mode, err = othello.ParseMode(req.Mode); err != nil {
			s.writeError(w, flipsight.CodeUnsupportedGameMode)
			return
		}
	}
	var id int64
	switch r.URL.Path {
	case "/arena/admin/human":
		id, err = s.CreateHuman(HumanOptions{Bot: req.Bot, Mode: mode, Clock: time.Duration(req.ClockMS) * time.Millisecond, BotBlack: req.BotBlack, XOT: req.XOT, Rounds: min(max(req.Rounds, 1), maxRounds)})
	case "/arena/admin/challenge":
		id, err = s.Challenge(req.From, req.To, mode)
	case "/arena/admin/tick":
		s.Tick()
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		writeJSON(w, http.StatusConflict, flipsight.ErrorResponse{Error: err.Error(), ServerNowMS: s.nowMS()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "match_id": id, "server_now_ms": s.nowMS()})
}

// adminError answers a refused admin request.
func (s *Server) adminError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, flipsight.ErrorResponse{Error: msg, ServerNowMS: s.nowMS()})
}

// ownNames returns the names the admin hooks answer to besides IP
// addresses and localhost: the machine's host name, alone and under a
// local domain, and extra.
func ownNames(extra []string) []string {
	// The domains a home network's own DNS or mDNS serves, which nobody
	// can register publicly (the appliance's list).
	localNameSuffixes := [...]string{".local", ".lan", ".home", ".home.arpa", ".internal"}
	var out []string
	if h, err := os.Hostname(); err == nil && h != "" {
		h = strings.ToLower(h)
		out = append(out, h)
		for _, s := range localNameSuffixes {
			out = append(out, h+s)
		}
	}
	for _, n := range extra {
		out = append(out, strings.TrimSuffix(strings.ToLower(n), "."))
	}
	return out
}

// hostAllowed reports whether host (a Host header, port removed) names
// this server: an IP address (the connection came in on one of the
// machine's), localhost, or one of names. Any other name is a page of
// another site whose DNS points at this machine (DNS rebinding).
func hostAllowed(host string, names []string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case host == "":
		return false
	case net.ParseIP(strings.Trim(host, "[]")) != nil, host == "localhost":
		return true
	}
	return slices.Contains(names, host)
}

// hostOnly returns a Host header without its port.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

func isLoopback(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
