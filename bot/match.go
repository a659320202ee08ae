package bot

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// runningAllowance is how many running matches the bot takes on beyond
// MaxMatches when it did not accept them itself (found at start-up, or its
// own challenges accepted by the other side).
const runningAllowance = 2

// maxRejects bounds the agent_reject calls in flight at once.
const maxRejects = 4

// legKey names one leg of one match.
type legKey struct {
	match int64
	leg   int
}

// match is a match the bot plays (loop-owned).
type match struct {
	id int64
	// sess is the match's engines (nil before openSession, or when its
	// mode is unknown or the provider failed).
	sess        *matchSession
	human       bool
	modeName    string
	mode        othello.Mode
	modeOK      bool
	participant int
	opponent    string
	// accepting: a slot is reserved and agent_accept is in flight.
	accepting bool
	running   bool
	// firstSeen is the real time the match was first tracked; missing
	// counts the later polls that did not list it.
	firstSeen time.Time
	missing   int
	// round identifies the round of a human room (round_no and
	// room_created_at); roundNo is its round_no.
	round   string
	roundNo int64
	// opponentUnknown: the name was not in the polls' bot lists yet.
	opponentUnknown bool
	obj             flipsight.Match
	legs            []*legState
	// tally counts the match's moves (written by its tasks).
	tally *moveTally
}

// legState is the latest view of one leg (loop-owned).
type legState struct {
	leg       flipsight.Leg
	serverNow int64
	arrived   time.Time
	known     bool
	// started is the revision a move task was started for (-1: none).
	started    int64
	task       *moveTask
	lastSearch Search
	// ponder cancels the engine's pondering after the bot's move at
	// revision ponderRev (nil: none running).
	ponder    func()
	ponderRev int64
	// start is the leg's board seen before any move (nil when first seen
	// later).
	start *flipsight.Leg
	// refused holds the moves whose requests the server refused whole at
	// revision refusedRev (replayAfterRefusal).
	refused    map[int]bool
	refusedRev int64
	// legDone: the leg's end was logged.
	legDone bool
}

func (m *match) cancelTasks() {
	for _, l := range m.legs {
		if l.task != nil {
			l.task.cancel()
		}
		l.stopPonder()
	}
}

// isFinal reports whether a match status is an end.
func isFinal(status string) bool {
	switch status {
	case flipsight.MatchFinished, flipsight.MatchAborted, flipsight.MatchRejected, flipsight.MatchExpired:
		return true
	}
	return false
}

// observe takes in one match object seen at serverNow, arrived locally at
// arrived (loop).
func (b *Bot) observe(obj flipsight.Match, serverNow int64, arrived time.Time) {
	if serverNow > 0 {
		b.serverOffset, b.haveOffset = serverNow-arrived.UnixMilli(), true
	} else if b.haveOffset {
		// No server time in this message: estimate it from the last one.
		serverNow = arrived.UnixMilli() + b.serverOffset
	}
	if b.opts.OnceMatch != 0 && obj.ID != b.opts.OnceMatch {
		return
	}
	p := obj.Participant(b.me)
	if p < 0 || b.ended.has(endKey{obj.ID, roundKey(obj)}) {
		return
	}
	m := b.matches[obj.ID]
	if m != nil && m.human && roundNo(obj) < m.roundNo {
		return // an older view of the room, from a round already over
	}
	switch {
	case obj.Status == flipsight.MatchPending:
		if m != nil {
			return // accept in flight or done; the next poll will say
		}
		b.considerPending(obj, p)
	case obj.Status == flipsight.MatchRunning:
		if m == nil && b.draining {
			return // stopping: nothing new, not even a running match
		}
		if m == nil {
			// A running match the bot did not accept: found at start-up
			// (a restart loses nothing), or the bot's own challenge that
			// the other side accepted. Taken within MaxMatches and a small
			// allowance, so that a server listing thousands of running
			// matches cannot make the bot start thousands of engines.
			if len(b.matches) >= b.opts.MaxMatches+runningAllowance {
				if !b.overLimit.has(obj.ID) {
					b.overLimit.add(obj.ID)
					b.serverWarn.Warn("not playing a running match: already at the most matches at once",
						"match", obj.ID, "max_matches", b.opts.MaxMatches)
				}
				return
			}
			m = b.track(obj, p)
			b.log.Info("playing match", "match", obj.ID, "mode", m.modeName, "opponent", m.opponent, "participant", p)
			b.openSession(m)
		}
		m.accepting = false
		m.running = true
		b.update(m, obj, serverNow, arrived)
	case isFinal(obj.Status):
		if m != nil {
			b.finish(m, &obj)
		} else if b.opts.OnceMatch != 0 && obj.ID == b.opts.OnceMatch {
			b.log.Info("the --once-match match has ended", "match", obj.ID, "status", obj.Status)
			b.onceDone = true
		}
	}
}

func (b *Bot) track(obj flipsight.Match, p int) *match {
	m := &match{id: obj.ID, human: obj.IsHuman(), participant: p, obj: obj, firstSeen: b.clock.Now(),
		round: roundKey(obj), roundNo: roundNo(obj), tally: &moveTally{}}
	m.modeName = obj.GameMode
	if obj.State != nil && obj.State.GameMode != "" {
		m.modeName = obj.State.GameMode
	}
	if mode, err := othello.ParseMode(m.modeName); err == nil {
		m.mode, m.modeOK = mode, true
	}
	m.opponent = b.opponentName(obj, p)
	m.opponentUnknown = strings.HasPrefix(m.opponent, "bot ")
	b.matches[obj.ID] = m
	return m
}

func (b *Bot) opponentName(obj flipsight.Match, p int) string {
	other := obj.BotB
	if p == 1 {
		other = obj.BotA
	}
	if obj.IsHuman() || other == 0 {
		return "human"
	}
	if n, ok := b.names[other]; ok && n != "" {
		return n
	}
	return "bot " + itoa(other)
}

// considerPending accepts or rejects a pending match (loop).
func (b *Bot) considerPending(obj flipsight.Match, p int) {
	if !obj.IsHuman() && p != 1 {
		return // our own challenge: the other bot accepts
	}
	if b.draining || b.stopping() || b.rejected.has(obj.ID) {
		return
	}
	mode := obj.GameMode
	if obj.State != nil && obj.State.GameMode != "" {
		mode = obj.State.GameMode
	}
	pm, err := othello.ParseMode(mode)
	if err != nil || !b.opts.Engine.supports(pm) {
		select {
		case b.rejects <- struct{}{}:
		default:
			return // enough rejects in flight: a later poll lists it again
		}
		b.rejected.add(obj.ID)
		b.serverWarn.Info("rejecting a match in a mode the engine cannot play", "match", obj.ID, "mode", mode)
		go func() {
			defer func() { <-b.rejects }()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if _, err := b.c.Reject(ctx, obj.ID); err != nil {
				b.serverWarn.Warn("reject failed", "match", obj.ID, "err", err)
			}
		}()
		return
	}
	if len(b.matches) >= b.opts.MaxMatches {
		return // no free slot; it stays pending
	}
	if b.engineFailing != "" {
		// Accepting would play a rated match with built-in fallback moves
		// under the owner's name; it stays pending (and may expire) until
		// the engine answers a probe again.
		b.serverWarn.Warn("not accepting the match: the engine is failing", "match", obj.ID, "mode", mode, "why", b.engineFailing)
		return
	}
	// Reserve the slot before accepting, so that simultaneous challenges
	// never overshoot MaxMatches.
	m := b.track(obj, p)
	m.accepting = true
	b.log.Info("accepting match", "match", obj.ID, "mode", mode, "opponent", m.opponent, "human", obj.IsHuman())
	b.openSession(m)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		resp, err := b.c.Accept(ctx, obj.ID)
		b.acceptDone <- acceptResult{id: obj.ID, resp: resp, err: err}
	}()
}

// acceptResult is an agent_accept answer for the loop.
type acceptResult struct {
	id   int64
	resp *flipsight.MatchResponse
	err  error
}

// onAccept handles an agent_accept answer (loop).
func (b *Bot) onAccept(r acceptResult) {
	m := b.matches[r.id]
	if r.err != nil {
		if flipsight.IsAuth(r.err) {
			b.fail(r.err)
		}
		b.serverWarn.Warn("accept failed", "match", r.id, "err", r.err)
		if m != nil && m.accepting {
			delete(b.matches, r.id) // release the slot
			b.closeSession(r.id)
		}
	} else if m != nil && r.resp.Match != nil && isFinal(r.resp.Match.Status) {
		delete(b.matches, r.id)
		b.closeSession(r.id)
	}
	b.startPoll()
	b.publish()
}

// update applies a running match's new state and starts the move tasks
// that are due (loop).
func (b *Bot) update(m *match, obj flipsight.Match, serverNow int64, arrived time.Time) {
	st := obj.State
	if st == nil {
		return
	}
	if rk := roundKey(obj); m.human && rk != m.round {
		// A new round in the human room: its leg starts over (its
		// revision may restart), so forget the old one.
		if m.round != "" && b.draining {
			// Stopping: the round played is over, no new one is started.
			b.log.Info("new round in the human match, not played: the bot is stopping", "match", m.id, "round", rk)
			b.finish(m, nil)
			return
		}
		if m.round != "" {
			b.log.Info("new round in the human match", "match", m.id, "round", rk)
			m.cancelTasks()
			b.recordLegs(m, m.obj, record.Unknown)
			m.legs = nil
		}
		m.round, m.roundNo = rk, roundNo(obj)
	}
	m.obj = obj
	if m.opponentUnknown {
		m.opponent = b.opponentName(obj, m.participant)
		m.opponentUnknown = strings.HasPrefix(m.opponent, "bot ")
	}
	for len(m.legs) < len(st.Legs) {
		m.legs = append(m.legs, &legState{started: -1})
	}
	for i := range st.Legs {
		nl := st.Legs[i]
		ls := m.legs[i]
		if ls.known && nl.Revision < ls.leg.Revision {
			continue // an older view than the one we have
		}
		if ls.known && nl.Revision == ls.leg.Revision && serverNow < ls.serverNow {
			continue
		}
		b.logLegNews(m, i, ls, &nl)
		ls.leg, ls.serverNow, ls.arrived, ls.known = nl, serverNow, arrived, true
		if ls.start == nil && len(nl.History) == 0 {
			ls.start = &flipsight.Leg{Board: slices.Clone(nl.Board), Turn: nl.Turn, Placed: nl.Placed}
		}
		if ls.task != nil && ls.task.rev != nl.Revision {
			// The position changed under the search: drop it.
			ls.task.cancel()
		}
		if ls.ponder != nil && ls.ponderDone(&nl, b.myMove(m, i)) {
			// The opponent has replied (or the leg is over): the move's
			// search, started below, finds what the ponder left.
			ls.stopPonder()
		}
		if b.stopping() {
			continue
		}
		if b.myMove(m, i) && nl.Revision > ls.started {
			b.startMove(m, i)
		}
	}
}

// logLegNews logs what changed in a leg between the view the bot had (ls)
// and nl: the opponent's moves at debug level (--verbose), and the leg's
// end with its discs and result once (loop).
func (b *Bot) logLegNews(m *match, i int, ls *legState, nl *flipsight.Leg) {
	mine := m.myColor(nl)
	size := boardSize(m, nl)
	if ls.known && b.log.Enabled(context.Background(), slog.LevelDebug) {
		for _, h := range nl.History[min(len(ls.leg.History), len(nl.History)):] {
			if h.Color != mine {
				b.log.Debug("opponent move", "match", m.id, "leg", i, "square", moveText(h.Move, size))
			}
		}
	}
	if nl.Status == flipsight.LegActive || nl.Status == "" || (ls.known && ls.leg.Status == nl.Status) || ls.legDone {
		return
	}
	ls.legDone = true
	discs := nl.ResultDiscs
	if len(discs) != 2 {
		discs = nl.Discs
	}
	if len(discs) != 2 || mine < 1 || mine > 2 {
		b.log.Info("leg finished", "match", m.id, "leg", i, "status", nl.Status)
		return
	}
	me, them := discs[mine-1], discs[2-mine]
	result := OutcomeDraw
	switch {
	case (me > them) != (m.mode == othello.Anti) && me != them:
		result = OutcomeWin
	case me != them:
		result = OutcomeLoss
	}
	if nl.Status == flipsight.LegTimeout {
		result = "ended on time"
	}
	b.log.Info("leg finished", "match", m.id, "leg", i, "discs", fmt.Sprintf("%d–%d", discs[0], discs[1]),
		"bot", colorWord(mine), "result", result, "status", nl.Status)
}

// moveText is a history move as a person reads it.
func moveText(mv flipsight.Move, size int) string {
	if mv.IsText() {
		return mv.Text
	}
	return othello.SquareName(mv.Square, size)
}

// colorWord names colour 1 black, 2 white.
func colorWord(c int) string {
	if c == 1 {
		return "black"
	}
	return "white"
}

// roundNo returns a human match's round_no (0 when it has none).
func roundNo(obj flipsight.Match) int64 {
	switch {
	case obj.RoundNo != nil:
		return *obj.RoundNo
	case obj.State != nil && obj.State.RoundNo != nil:
		return *obj.State.RoundNo
	}
	return 0
}

// roundKey returns the round identity of a human match ("" for a bot
// match).
func roundKey(obj flipsight.Match) string {
	var rn *int64
	var rc *string
	if st := obj.State; st != nil {
		rn, rc = st.RoundNo, st.RoomCreatedAt
	}
	if obj.RoundNo != nil {
		rn = obj.RoundNo
	}
	if obj.RoomCreatedAt != nil {
		rc = obj.RoomCreatedAt
	}
	k := ""
	if rn != nil {
		k = itoa(*rn)
	}
	if rc != nil {
		k += "@" + *rc
	}
	return k
}

// myColor returns the bot's colour in leg i.
func (m *match) myColor(l *flipsight.Leg) int {
	if l.BlackParticipant == m.participant {
		return flipsight.Black
	}
	return flipsight.White
}

// myMove reports whether leg i is active with the bot to move (loop).
func (b *Bot) myMove(m *match, i int) bool {
	l := &m.legs[i].leg
	return l.Status == flipsight.LegActive && l.Turn == m.myColor(l)
}

// stillMyMove reports whether (key, rev) is still the bot's move (loop).
func (b *Bot) stillMyMove(key legKey, rev int64) bool {
	m := b.matches[key.match]
	if m == nil || key.leg >= len(m.legs) {
		return false
	}
	return m.legs[key.leg].leg.Revision == rev && b.myMove(m, key.leg)
}

// finish ends a tracked match; obj is nil when the server stopped listing
// it (loop).
func (b *Bot) finish(m *match, obj *flipsight.Match) {
	m.tally.end()
	delete(b.matches, m.id)
	b.ended.add(endKey{m.id, m.round})
	m.cancelTasks()
	b.closeSession(m.id)
	if m.accepting && obj != nil && (obj.Status == flipsight.MatchRejected || obj.Status == flipsight.MatchExpired) {
		b.log.Info("challenge ended before it started", "match", m.id, "status", obj.Status)
	} else {
		if obj != nil && obj.State != nil {
			// The legs that ended with the match (its last view).
			for i := range min(len(m.legs), len(obj.State.Legs)) {
				b.logLegNews(m, i, m.legs[i], &obj.State.Legs[i])
			}
		}
		res := b.result(m, obj)
		final := m.obj
		if obj != nil && obj.State != nil {
			final = *obj
		}
		res.Games = b.recordLegs(m, final, res.Outcome)
		res.Moves = m.tally.snapshot()
		b.results = append([]Result{res}, b.results...)
		if len(b.results) > b.opts.Results {
			b.results = b.results[:b.opts.Results]
		}
		b.log.Info("match finished", "match", m.id, "mode", res.Mode, "opponent", res.Opponent,
			"outcome", res.Outcome, "mine", res.Mine, "theirs", res.Theirs, "reason", res.Reason,
			"moves", res.Moves.String())
	}
	for i := range max(2, len(m.legs)) {
		b.takeSearches(legKey{m.id, i}) // forget what was not recorded
	}
	if b.opts.OnceMatch != 0 && m.id == b.opts.OnceMatch {
		b.onceDone = true
	}
	b.publish()
}

func (b *Bot) result(m *match, obj *flipsight.Match) Result {
	res := Result{MatchID: m.id, Human: m.human, Ranked: m.obj.Ranked, Mode: m.modeName, Opponent: m.opponent,
		Outcome: OutcomeUnknown, At: b.clock.Now()}
	if obj == nil {
		return res
	}
	if obj.Status == flipsight.MatchAborted {
		res.Outcome = OutcomeAborted
	}
	st := obj.State
	if st == nil {
		return res
	}
	if st.FinishReason != nil {
		res.Reason = *st.FinishReason
	}
	if len(st.Totals) == 2 {
		res.Mine, res.Theirs = st.Totals[m.participant], st.Totals[1-m.participant]
	}
	if obj.Status != flipsight.MatchFinished {
		return res
	}
	switch {
	case st.Winner == nil:
		res.Outcome = OutcomeDraw
	case *st.Winner == m.participant:
		res.Outcome = OutcomeWin
	default:
		res.Outcome = OutcomeLoss
	}
	return res
}

// buildStatus makes the snapshot (loop, under statusMu).
func (b *Bot) buildStatus(state string) Status {
	now := b.clock.Now()
	st := Status{State: state, Bot: b.botInfo, LastError: b.lastErr, NetworkDown: b.networkDown, Updated: now,
		EngineFailing: b.engineFailing,
		Results:       append([]Result(nil), b.results...)}
	for _, m := range b.matches {
		ms := MatchStatus{ID: m.id, Human: m.human, Mode: m.modeName, Status: m.obj.Status, Moves: m.tally.snapshot(),
			Opponent: m.opponent, Participant: m.participant, Ranked: m.obj.Ranked, Legs: []LegStatus{}}
		if m.accepting {
			ms.Status = flipsight.MatchPending
		}
		if s := m.obj.State; s != nil && len(s.Totals) == 2 {
			ms.Totals = [2]int{s.Totals[m.participant], s.Totals[1-m.participant]}
		}
		for i, ls := range m.legs {
			if !ls.known {
				continue
			}
			l := ls.leg
			lst := LegStatus{Leg: i, Status: l.Status, BoardSize: boardSize(m, &l),
				Board: append([]int(nil), l.Board...), Blocked: blockedSquares(m), MyColor: m.myColor(&l), Turn: l.Turn,
				MyTurn:   l.Status == flipsight.LegActive && l.Turn == m.myColor(&l),
				Revision: l.Revision, LastMove: -2, Moves: len(l.History), Thinking: ls.task != nil,
				LastSearch: ls.lastSearch, ClocksAt: now}
			if len(l.Discs) == 2 {
				lst.Discs = [2]int{l.Discs[0], l.Discs[1]}
			}
			if len(l.ClocksMS) == 2 {
				for c := 0; c < 2; c++ {
					lst.ClocksMS[c] = int64(l.ClocksMS[c])
				}
				if l.Status == flipsight.LegActive && (l.Turn == 1 || l.Turn == 2) {
					lst.ClocksMS[l.Turn-1] = max(0, Remaining(l.ClocksMS[l.Turn-1], ls.serverNow, l.TurnStartedMS, now.Sub(ls.arrived))).Milliseconds()
				}
			}
			if n := len(l.History); n > 0 && !l.History[n-1].Move.IsText() {
				lst.LastMove = l.History[n-1].Move.Square
			}
			ms.Legs = append(ms.Legs, lst)
		}
		st.Matches = append(st.Matches, ms)
	}
	sortMatches(st.Matches)
	return st
}

// blockedSquares returns the match's unusable squares (never nil).
func blockedSquares(m *match) []int {
	if s := m.obj.State; s != nil && s.BlockedSquares != nil {
		return append([]int{}, s.BlockedSquares...)
	}
	if m.modeOK {
		if b := m.mode.BlockedSquares(); b != nil {
			return b
		}
	}
	return []int{}
}

func boardSize(m *match, l *flipsight.Leg) int {
	if s := m.obj.State; s != nil && s.BoardSize > 0 {
		return s.BoardSize
	}
	if len(l.Board) == 100 {
		return 10
	}
	return 8
}

func sortMatches(ms []MatchStatus) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].ID < ms[j-1].ID; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// recordLegs makes the records of the match's finished legs from obj (the
// final match object, or the last one seen) and the bot's latest views,
// hands them to Options.Records off the loop, and returns their ids (loop).
func (b *Bot) recordLegs(m *match, obj flipsight.Match, outcome string) []string {
	if b.opts.Records == nil || obj.State == nil {
		return nil
	}
	names := [2]string{}
	names[m.participant] = b.botInfo.Name
	names[1-m.participant] = m.opponent
	var games []record.Game
	for i, ls := range m.legs {
		view := ls.leg
		if i < len(obj.State.Legs) && (!ls.known || obj.State.Legs[i].Revision >= view.Revision) {
			view = obj.State.Legs[i]
		}
		if view.Status == "" || view.Status == flipsight.LegActive {
			continue
		}
		in := record.LegInput{Source: record.SourceFlipSight, Match: obj, Leg: i, View: view,
			Names: names, IDs: [2]int64{obj.BotA, obj.BotB}, Me: m.participant,
			Searches: b.takeSearches(legKey{m.id, i}), MatchResult: outcome, Ended: b.clock.Now()}
		if ls.start != nil {
			in.StartBoard, in.StartTurn, in.StartPlaced = ls.start.Board, ls.start.Turn, ls.start.Placed
		}
		g, err := record.FromLeg(in)
		if err != nil {
			b.log.Warn("cannot record the leg", "match", m.id, "leg", i, "err", err)
			continue
		}
		games = append(games, g)
	}
	if len(games) == 0 {
		return nil
	}
	ids := make([]string, len(games))
	for i, g := range games {
		ids[i] = g.ID
	}
	b.recording.Add(1)
	go func() {
		defer b.recording.Done()
		b.recordMu.Lock() // one game at a time, in order
		defer b.recordMu.Unlock()
		for _, g := range games {
			if err := b.opts.Records.Add(g); err != nil {
				b.log.Warn("game record not saved", "game", g.ID, "err", err)
			}
		}
	}()
	return ids
}
