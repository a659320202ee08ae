package arena

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/text"
)

// apiError is a failed call: the spec's error string, with its status.
type apiError struct{ code flipsight.ErrorCode }

func fail(code flipsight.ErrorCode) *apiError { return &apiError{code} }

// serveAPI answers POST /flipsight/bot_match_api.php.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.writeError(w, flipsight.CodePOSTRequired)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.writeError(w, flipsight.CodeRequestTooLarge)
			return
		}
		s.writeError(w, flipsight.CodeJSONObjectRequired)
		return
	}
	token, ok := bearer(r)
	s.mu.Lock()
	var b *bot
	if ok {
		b = s.botByToken(token)
	}
	s.mu.Unlock()
	if b == nil {
		s.writeError(w, flipsight.CodeInvalidCredential)
		return
	}
	req, aerr := decodeRequest(body)
	if aerr != nil {
		s.writeError(w, aerr.code)
		return
	}
	resp, aerr := s.handle(b, req)
	if aerr != nil {
		s.writeError(w, aerr.code)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

// bearer returns the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	const p = "bearer "
	if len(h) <= len(p) || !strings.EqualFold(h[:len(p)], p) {
		return "", false
	}
	t := strings.TrimSpace(h[len(p):])
	return t, t != ""
}

// request is a decoded POST body: the union of every action's fields.
// Fields whose presence matters are raw or pointers.
type request struct {
	Action        string                 `json:"action"`
	Environment   *flipsight.Environment `json:"environment"`
	TargetID      *int64                 `json:"target_id"`
	TargetName    *string                `json:"target_name"`
	GameMode      *string                `json:"game_mode"`
	MatchID       *int64                 `json:"match_id"`
	Leg           *int                   `json:"leg"`
	Revision      *int64                 `json:"revision"`
	Move          json.RawMessage        `json:"move"`
	RoundNo       *int64                 `json:"round_no"`
	RoomCreatedAt *string                `json:"room_created_at"`
}

// decodeRequest parses a POST body. A body that is not a JSON object, or
// whose fields have the wrong types, is 400 "JSON object required"; an
// unknown action 400 "unknown action".
func decodeRequest(body []byte) (*request, *apiError) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, fail(flipsight.CodeJSONObjectRequired)
	}
	var req request
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&req); err != nil {
		return nil, fail(flipsight.CodeJSONObjectRequired)
	}
	if dec.More() {
		return nil, fail(flipsight.CodeJSONObjectRequired)
	}
	switch req.Action {
	case flipsight.ActionPoll, flipsight.ActionChallenge, flipsight.ActionAccept,
		flipsight.ActionReject, flipsight.ActionMove:
		return &req, nil
	}
	return nil, fail(flipsight.CodeUnknownAction)
}

// handle runs one action for bot b.
func (s *Server) handle(b *bot, req *request) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fail(flipsight.CodeStorageUnavailable)
	}
	now := s.nowMS()
	b.lastSeenMS = now
	s.advanceAll(now)
	switch req.Action {
	case flipsight.ActionPoll:
		return s.poll(b, req, now), nil
	case flipsight.ActionChallenge:
		return s.challenge(b, req, now)
	case flipsight.ActionAccept:
		return s.answer(b, req, true, now)
	case flipsight.ActionReject:
		return s.answer(b, req, false, now)
	default:
		return s.move(b, req, now)
	}
}

func (s *Server) poll(b *bot, req *request, now int64) *flipsight.PollResponse {
	if req.Environment != nil {
		env := *req.Environment
		env.CPU = text.Clip(env.CPU, flipsight.MaxEnvironmentLen)
		env.OS = text.Clip(env.OS, flipsight.MaxEnvironmentLen)
		env.Engine = text.Clip(env.Engine, flipsight.MaxEnvironmentLen)
		b.env = &env
	}
	out := &flipsight.PollResponse{
		OK:          true,
		Bots:        []flipsight.Bot{},
		RecordBots:  []flipsight.Bot{},
		Matches:     []flipsight.Match{},
		Me:          "local",
		ServerNowMS: now,
	}
	for _, o := range s.bots {
		out.Bots = append(out.Bots, s.wire(o, now))
	}
	me := s.wire(b, now)
	out.Bot = &me
	// Pending and running matches, and the most recent ended ones.
	ended := 0
	ms := s.sortedMatches()
	var list []*match
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if !m.has(b.id) {
			continue
		}
		if m.status != flipsight.MatchPending && m.status != flipsight.MatchRunning {
			if ended >= maxEndedInPoll {
				continue
			}
			ended++
		}
		list = append(list, m)
	}
	for i := len(list) - 1; i >= 0; i-- {
		out.Matches = append(out.Matches, s.wireMatch(list[i], now))
	}
	return out
}

// maxEndedInPoll bounds the ended matches one poll lists.
const maxEndedInPoll = 20

func (s *Server) challenge(b *bot, req *request, now int64) (any, *apiError) {
	var t *bot
	switch {
	case req.TargetID != nil:
		t = s.botByID(*req.TargetID)
	case req.TargetName != nil:
		t = s.botByName(*req.TargetName)
	}
	if t == nil || t == b {
		return nil, fail(flipsight.CodeTargetBotNotFound)
	}
	modeName := flipsight.ModeStd
	if req.GameMode != nil && *req.GameMode != "" {
		modeName = *req.GameMode
	}
	mode, err := othello.ParseMode(modeName)
	if err != nil || !b.modes[mode] || !t.modes[mode] {
		return nil, fail(flipsight.CodeUnsupportedGameMode)
	}
	m, aerr := s.newChallenge(b, t, mode, false, now)
	if aerr != nil {
		return nil, aerr
	}
	return &flipsight.ChallengeResponse{OK: true, MatchID: m.id, ServerNowMS: now}, nil
}

// newChallenge makes a pending match a → t (t is bot_b), started at once
// when t is built-in.
func (s *Server) newChallenge(a, t *bot, mode othello.Mode, auto bool, now int64) (*match, *apiError) {
	if !s.online(a, now) || !s.online(t, now) {
		return nil, fail(flipsight.CodeBothBotsConnected)
	}
	if s.running(a) >= a.maxMatches {
		return nil, fail(flipsight.CodeBotHasActiveMatch)
	}
	if s.running(t) >= t.maxMatches || s.pendingFrom(a) >= maxPendingChallenges {
		return nil, fail(flipsight.CodeBotBusy)
	}
	if mode != othello.Std && (a.builtin || t.builtin) && s.builtinVariants() >= DefaultBuiltinVariant {
		return nil, fail(flipsight.CodeSiteBotVariantsFull)
	}
	m := &match{
		id:        s.nextMatch,
		botA:      a.id,
		botB:      t.id,
		mode:      mode,
		clockMS:   s.cfg.ClockPerLeg.Milliseconds(),
		status:    flipsight.MatchPending,
		createdMS: now,
		expiresMS: now + s.cfg.ChallengeTTL.Milliseconds(),
		auto:      auto,
		ranked:    !practice(a) && !practice(t),
	}
	s.nextMatch++
	s.matches[m.id] = m
	s.log.Info("challenge", "match", m.id, "from", a.name, "to", t.name, "mode", mode.String())
	if t.builtin {
		s.startPair(m, now)
		s.log.Info("match started", "match", m.id, "a", a.name, "b", t.name, "mode", mode.String())
	}
	s.changed(m)
	return m, nil
}

// maxPendingChallenges bounds the unanswered challenges one bot has sent.
const maxPendingChallenges = 10

// pendingFrom counts the pending challenges sent by b.
func (s *Server) pendingFrom(b *bot) int {
	n := 0
	for _, m := range s.matches {
		if m.status == flipsight.MatchPending && m.botA == b.id && !m.human {
			n++
		}
	}
	return n
}

func practice(b *bot) bool { return b.env != nil && b.env.Practice }

// builtinVariants counts running non-std matches with a built-in bot.
func (s *Server) builtinVariants() int {
	n := 0
	for _, m := range s.matches {
		if m.status != flipsight.MatchRunning || m.mode == othello.Std {
			continue
		}
		for _, id := range []int64{m.botA, m.botB} {
			if b := s.botByID(id); b != nil && b.builtin {
				n++
				break
			}
		}
	}
	return n
}

// answer accepts or rejects a pending match addressed to b.
func (s *Server) answer(b *bot, req *request, accept bool, now int64) (any, *apiError) {
	if req.MatchID == nil {
		return nil, fail(flipsight.CodeChallengeAnswered)
	}
	m := s.matches[*req.MatchID]
	if m == nil || !m.has(b.id) {
		return nil, fail(flipsight.CodeChallengeAnswered)
	}
	if !m.human && m.botB != b.id {
		return nil, fail(flipsight.CodeAccessDenied)
	}
	if m.status != flipsight.MatchPending || s.expire(m, now) {
		return nil, fail(flipsight.CodeChallengeAnswered)
	}
	if !accept {
		m.status = flipsight.MatchRejected
		m.endMS = now
		s.ended(m)
		if m.auto {
			b.autoOffUntil = now + DefaultAutoMatchPause.Milliseconds()
		}
		s.log.Info("challenge rejected", "match", m.id, "by", b.name)
		s.changed(m)
		return &flipsight.MatchResponse{OK: true, Match: shortMatch(m), ServerNowMS: now}, nil
	}
	if s.running(b) >= b.maxMatches {
		return nil, fail(flipsight.CodeBotBusy)
	}
	if m.human {
		s.startHuman(m, now)
	} else {
		a := s.botByID(m.botA)
		if !s.online(a, now) {
			return nil, fail(flipsight.CodeBothBotsConnected)
		}
		if s.running(a) >= a.maxMatches {
			return nil, fail(flipsight.CodeBotBusy)
		}
		s.startPair(m, now)
	}
	s.log.Info("match started", "match", m.id, "a", s.botName(m.botA), "b", s.botName(m.botB), "mode", m.mode.String())
	s.changed(m)
	return &flipsight.MatchResponse{OK: true, Match: shortMatch(m), ServerNowMS: now}, nil
}

func (s *Server) move(b *bot, req *request, now int64) (any, *apiError) {
	if req.MatchID == nil || *req.MatchID == 0 {
		return nil, fail(flipsight.CodeMatchNotRunning)
	}
	m := s.matches[*req.MatchID]
	if m == nil {
		return nil, fail(flipsight.CodeMatchNotRunning)
	}
	p := m.participant(b.id)
	if p < 0 {
		return nil, fail(flipsight.CodeAccessDenied)
	}
	li := 0
	if req.Leg != nil {
		li = *req.Leg
	} else if !m.human {
		return nil, fail(flipsight.CodeLegFinished)
	}
	if m.human {
		if req.RoundNo == nil || req.RoomCreatedAt == nil || *req.RoundNo != m.roundNo || *req.RoomCreatedAt != m.roomAt {
			return nil, fail(flipsight.CodeStaleRoomRevision)
		}
	}
	if req.Revision == nil || *req.Revision < 0 {
		return nil, fail(flipsight.CodeStaleRevision)
	}
	if len(req.Move) == 0 {
		return nil, fail(flipsight.CodeInvalidMoveCoordinate)
	}
	mv, code := parseMove(req.Move, m.mode.Size())
	if code != "" {
		return nil, fail(code)
	}
	if code := s.play(m, li, *req.Revision, p, mv, now); code != "" {
		return nil, fail(code)
	}
	return &flipsight.MatchResponse{OK: true, Match: shortMatch(m), ServerNowMS: now}, nil
}

// parseMove reads the move field: an integer −1..size²−1 or a string
// (coordinate, number or pass token).
func parseMove(raw json.RawMessage, size int) (int, flipsight.ErrorCode) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] != '"' {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return 0, flipsight.CodeInvalidMoveCoordinate
		}
		v, err := n.Int64()
		if err != nil {
			return 0, flipsight.CodeInvalidMoveCoordinate
		}
		if v < -1 || v >= int64(size*size) {
			return 0, flipsight.CodeMoveOutsideBoard
		}
		return int(v), ""
	}
	mv, err := othello.ParseMoveJSON(raw, size)
	if err != nil {
		return 0, flipsight.CodeInvalidMoveCoordinate
	}
	return mv, ""
}

func (s *Server) writeError(w http.ResponseWriter, code flipsight.ErrorCode) {
	writeJSON(w, flipsight.StatusFor(code), flipsight.ErrorResponse{OK: false, Error: string(code), ServerNowMS: s.nowMS()})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"ok":false,"error":"internal error"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
