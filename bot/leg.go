package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
)

// moveTask is the search and send of one move for (match, leg, revision).
type moveTask struct {
	key    legKey
	rev    int64
	ctx    context.Context // cancelled when the leg changed: the search is dropped
	cancel context.CancelFunc
}

// moveJob is everything a task needs, copied out of the loop's state.
type moveJob struct {
	key           legKey
	sess          *matchSession // the match's engines (nil: none)
	human         bool
	mode          othello.Mode
	modeOK        bool
	modeName      string
	size          int
	blocked       []int
	leg           flipsight.Leg
	color         int
	serverNow     int64
	arrived       time.Time
	roundNo       *int64
	roomCreatedAt *string
	// tally counts the match's moves (shared by its tasks).
	tally *moveTally
	// refused holds the moves whose agent_move requests the server refused
	// (400, 403, 405, 413) at this revision: the leg is played again from
	// a fresh poll, never with the same request.
	refused map[int]bool
}

// taskMsg is a task's report to the loop.
type taskMsg struct {
	task *moveTask
	// fatal is a rejected token.
	fatal error
	// poll asks for a fresh poll (after a refused move).
	poll bool
	// refusal is a move request the server refused whole (400, 403, 405,
	// 413): the leg is played again from the fresh poll without it.
	refusal *refusal
	// sent describes the move sent, nil when none was accepted.
	sent *Search
	// ponder is what to think about on the opponent's time after the
	// move sent (nil: nothing; Options.Ponder off).
	ponder *engines.PonderRequest
}

// refusal is a move the server refused to take at a revision.
type refusal struct {
	rev  int64
	move int
}

// maxRefusals is how many refused requests at one revision a leg is played
// again after; then it waits for the next revision (or the clock).
const maxRefusals = 3

// startMove starts the task for leg i's current revision (loop).
func (b *Bot) startMove(m *match, i int) {
	ls := m.legs[i]
	l := ls.leg
	ls.started = l.Revision
	ctx, cancel := context.WithCancel(context.Background())
	t := &moveTask{key: legKey{m.id, i}, rev: l.Revision, ctx: ctx, cancel: cancel}
	ls.task = t
	j := moveJob{key: t.key, sess: m.sess, human: m.human, mode: m.mode, modeOK: m.modeOK, modeName: m.modeName, tally: m.tally,
		leg: l, color: m.myColor(&l), serverNow: ls.serverNow, arrived: ls.arrived}
	j.leg.Board = slices.Clone(l.Board)
	j.leg.LegalMoves = slices.Clone(l.LegalMoves)
	j.leg.History = slices.Clone(l.History)
	if st := m.obj.State; st != nil {
		j.size, j.blocked = st.BoardSize, slices.Clone(st.BlockedSquares)
		j.roundNo, j.roomCreatedAt = st.RoundNo, st.RoomCreatedAt
	}
	if m.obj.RoundNo != nil {
		j.roundNo = m.obj.RoundNo
	}
	if m.obj.RoomCreatedAt != nil {
		j.roomCreatedAt = m.obj.RoomCreatedAt
	}
	if ls.refusedRev == l.Revision && len(ls.refused) > 0 {
		j.refused = maps.Clone(ls.refused)
	}
	if j.size == 0 {
		j.size = 8
		if len(l.Board) == 100 {
			j.size = 10
		}
	}
	if j.blocked == nil {
		j.blocked = []int{}
	}
	b.tasks.Add(1)
	go func() {
		defer b.tasks.Done()
		defer cancel()
		msg := b.playMove(j, t)
		msg.task = t
		b.taskMsgs <- msg
	}()
}

// onTask handles a task's end (loop).
func (b *Bot) onTask(msg taskMsg) {
	t := msg.task
	if m := b.matches[t.key.match]; m != nil && t.key.leg < len(m.legs) {
		ls := m.legs[t.key.leg]
		if ls.task == t {
			ls.task = nil
		}
		if msg.sent != nil {
			ls.lastSearch = *msg.sent
		}
		if msg.ponder != nil {
			b.startPonder(m, t.key.leg, t.rev, *msg.ponder)
		}
	}
	if msg.sent != nil {
		b.noteEngineHealth(*msg.sent)
	}
	if msg.fatal != nil {
		b.fail(msg.fatal)
	}
	if r := msg.refusal; r != nil {
		b.replayAfterRefusal(t.key, *r)
	}
	if msg.poll {
		b.startPoll()
	}
	b.publish()
}

// replayAfterRefusal notes a move request the server refused whole and lets
// the leg be played again at the same revision from the fresh poll that
// follows, without that move, up to maxRefusals times a revision (loop).
func (b *Bot) replayAfterRefusal(key legKey, r refusal) {
	m := b.matches[key.match]
	if m == nil || key.leg >= len(m.legs) {
		return
	}
	ls := m.legs[key.leg]
	if ls.refused == nil || ls.refusedRev != r.rev {
		ls.refusedRev, ls.refused = r.rev, map[int]bool{}
	}
	ls.refused[r.move] = true
	if len(ls.refused) >= maxRefusals || ls.started != r.rev {
		b.log.Error("the server refused this leg's move requests; waiting for its next state",
			"match", key.match, "leg", key.leg, "revision", r.rev, "refused", len(ls.refused))
		return
	}
	ls.started = r.rev - 1
	b.log.Warn("the server refused the move request; playing the leg again from a fresh poll",
		"match", key.match, "leg", key.leg, "revision", r.rev)
}

// choice is a chosen move and how it was found.
type choice struct {
	move   int
	source string // engine, forced, fallback
	cause  string // a fallback's Cause*
	res    engines.Result
	// waited is how long the bot waited for the engine; quick, for the
	// quick search of a fallback (fallbackMove).
	waited, quick time.Duration
	// budget, overhead and movesLeft are the plan the move was made with.
	budget, overhead time.Duration
	movesLeft        int
}

// playMove thinks and sends one move (task goroutine).
func (b *Bot) playMove(j moveJob, t *moveTask) taskMsg {
	start := b.clock.Now()
	clockMS := 0.0
	if j.color >= 1 && j.color <= len(j.leg.ClocksMS) {
		clockMS = j.leg.ClocksMS[j.color-1]
	}
	remaining := Remaining(clockMS, j.serverNow, j.leg.TurnStartedMS, start.Sub(j.arrived))
	// The instant the clock was read, for engines that read it again when
	// their request goes out: engines live on the system clock (see
	// clock.go), whatever clock the bot was given.
	at := time.Now()
	deadline := start.Add(remaining)

	var pos *othello.Position
	if j.modeOK {
		p, err := othello.Leg{Board: j.leg.Board, Turn: j.leg.Turn, Placed: othello.Placed(j.leg.Placed),
			LegalMoves: j.leg.LegalMoves}.Position(j.modeName, j.size, j.blocked)
		if err != nil {
			b.log.Warn("leg does not make a position; playing a fallback", "match", j.key.match, "leg", j.key.leg, "err", err)
		} else {
			pos = &p
		}
	}
	overhead := b.over.Estimate()
	plan, moves := planMove(pos, j.leg.Board, j.size, remaining, b.opts.MaxThink, overhead)
	budget, left := plan.Limit, moves.Own
	c, ok := b.choose(t, j, pos, engines.Request{Remaining: remaining, At: at, Budget: budget, Overhead: overhead, Cap: b.opts.MaxThink})
	if !ok {
		return taskMsg{}
	}
	if t.ctx.Err() != nil {
		b.log.Debug("search dropped: the leg changed", "match", j.key.match, "leg", j.key.leg, "revision", j.leg.Revision)
		return taskMsg{}
	}
	if j.refused[c.move] {
		// The server refused a request with this move at this revision:
		// never the same request again.
		mv, ok := quickMove(pos, j.leg.LegalMoves, j.refused)
		if !ok {
			b.log.Error("no move left that the server has not refused at this revision", "match", j.key.match,
				"leg", j.key.leg, "revision", j.leg.Revision)
			return taskMsg{}
		}
		c = choice{move: mv, source: "fallback", cause: CauseRefused, waited: c.waited}
	}
	c.budget, c.overhead, c.movesLeft = budget, overhead, left
	if b.opts.Engine.SpecTimed {
		c.budget = engines.SpecBudget(remaining, b.opts.MaxThink)
	}
	msg := b.send(j, t, pos, c, deadline, start)
	if msg.sent != nil && pos != nil && b.opts.Ponder {
		msg.ponder = ponderRequest(*pos, c, j.key.leg)
	}
	return msg
}

// ponderRequest is the pondering after the move c in pos: the position the
// opponent is to move in, and the rest of the engine's principal variation
// (nil when the game is over).
func ponderRequest(pos othello.Position, c choice, leg int) *engines.PonderRequest {
	next, err := pos.Play(c.move)
	if err != nil || next.GameOver() {
		return nil
	}
	req := &engines.PonderRequest{Position: next, Leg: leg}
	if pv := c.res.PV; c.source == "engine" && len(pv) > 1 && pv[0] == c.move {
		req.Expected = slices.Clone(pv[1:])
	}
	return req
}

// choose finds the move: forced when there is no choice, else the engine's
// answer if legal and in time, else a quick fallback. clk holds the move's
// clock: Remaining read At, the plan's Budget and the spec's Cap.
//
// An engine of the spec's --engine protocol (Engines.SpecTimed) is
// asked on every own turn: a forced one goes to it in the background while
// the forced move is sent at once, and any other is awaited until the
// mover's clock is down to the spec's margin (the engine keeps budget_ms
// itself, from when its request is written). Other engines are timed by
// the clock plan: asked only when there is a choice, and awaited for the
// plan's budget.
func (b *Bot) choose(t *moveTask, j moveJob, pos *othello.Position, clk engines.Request) (choice, bool) {
	legal := j.leg.LegalMoves
	spec := b.opts.Engine.SpecTimed
	if len(legal) == 0 && j.human {
		return choice{}, false // the server passes for us in human games
	}
	if len(legal) <= 1 {
		mv := othello.Pass
		if len(legal) == 1 {
			mv = legal[0]
		}
		if spec && pos != nil {
			b.askInBackground(j, *pos, clk)
		}
		return choice{move: mv, source: "forced"}, true
	}
	fallback := func(cause, why string, err error, waited time.Duration) (choice, bool) {
		mv, res, took := b.fallbackMove(t, j, pos, legal, clk)
		if t.ctx.Err() == nil {
			b.logFallback(j, cause, why, err)
		}
		return choice{move: mv, source: "fallback", cause: cause, res: res, waited: waited, quick: took}, true
	}
	if pos == nil {
		return fallback(CauseNoPosition, "no position for the engine", nil, 0)
	}
	wait := clk.Budget
	if spec {
		// Until the clock is down to the margin: the engine may wait for
		// the match's other leg, and then has its full budget_ms.
		wait = clk.Remaining - engines.SpecMargin + specGrace
		if engines.SpecBudget(clk.Remaining, clk.Cap) <= 0 {
			return fallback(CauseNoTime, "no time left for the engine: budget_ms would be 0", nil, 0)
		}
	} else if wait <= 0 {
		return fallback(CauseNoTime, "no time left for the engine: the clock is down to the reserve for the moves left", nil, 0)
	}
	if j.sess == nil {
		return fallback(CauseUnavailable, "engine unavailable", errNoSession, 0)
	}
	req := b.engineRequest(j, *pos, clk)
	asked := b.clock.Now()
	// A request the match's other leg had its shared engine replaced under
	// goes to the replacement inside the session (engines.Session.Move).
	a, got := b.ask(t, j, req, wait, clk, spec)
	waited := b.clock.Now().Sub(asked)
	switch got {
	case answered:
		if a.err != nil {
			if t.ctx.Err() != nil {
				return choice{}, true // dropped anyway
			}
			if errors.Is(a.err, engines.ErrNotReady) {
				// Still starting: keep it, it answers the next move.
				return fallback(CauseStarting, "engine still starting", a.err, waited)
			}
			b.afterFailure(j, spec)
			return fallback(CauseFailed, "engine failed", a.err, waited)
		}
		if !slices.Contains(legal, a.res.Move) {
			return fallback(CauseIllegal, "engine answered an illegal move", errors.New(othello.SquareName(a.res.Move, j.size)), waited)
		}
		return choice{move: a.res.Move, source: "engine", res: a.res, waited: waited}, true
	case timedOut:
		j.sess.s.Replace(j.key.leg)
		return fallback(CauseTimeout, "engine did not answer in time", fmt.Errorf("waited %v", waited.Round(time.Millisecond)), waited)
	default: // the leg changed: the move is dropped
		return choice{}, true
	}
}

// errNoSession is the reason of a fallback when the match has no engines
// (the provider failed to open them).
var errNoSession = errors.New("no engine session for the match")

// afterFailure deals with an engine whose Move failed (task goroutine). An
// engine of the spec's protocol (spec: engines/jsonline, one process for
// both legs of a match) has already killed a process that overran or died,
// and starts a new one at its next request: the other leg's request that
// waits for it gets that new process. Replacing the whole engine instead
// closed it under that request, whose retry then queued behind this leg's
// next request on the replacement, and so on: the other leg lost 20 of
// its 26 turns to fallbacks against an engine that overran one leg only.
// Its process is started again ahead of the next move. Other engines are
// replaced (engines.Session.Replace).
func (b *Bot) afterFailure(j moveJob, spec bool) {
	if spec {
		j.sess.s.Restart(j.key.leg)
		return
	}
	j.sess.s.Replace(j.key.leg)
}

// ask asks the leg's engine for req and waits for its answer for wait, or
// until the leg changes (task goroutine). The engine's context ends then;
// an engine flipbot times itself (not spec) gets a grace to say its best
// move so far (stopGrace).
func (b *Bot) ask(t *moveTask, j moveJob, req engines.Request, wait time.Duration, clk engines.Request, spec bool) (engineAnswer, awaitResult) {
	ctx, cancel := context.WithTimeout(t.ctx, wait)
	defer cancel()
	ch := make(chan engineAnswer, 1)
	go func() {
		res, err := j.sess.s.Move(ctx, j.key.leg, req)
		ch <- engineAnswer{res, err}
	}()
	timer := b.clock.NewTimer(wait)
	defer timer.Stop()
	a, got := awaitAnswer(t.ctx.Done(), ch, timer.C())
	if got == timedOut && !spec && j.sess.graceFor(j.key.leg) {
		// The engine's context has ended with the timer: an engine that
		// answers with its best move so far when stopped (the built-in
		// search) is waiting for the CPU to say so, which on a loaded
		// machine takes longer than its margin. Its answer beats a
		// one-ply move; the grace comes out of the clock's spare time.
		// An engine that stops without a move gets no grace again.
		cancel()
		if g := stopGrace(clk, time.Now()); g > 0 { // clk.At is the system clock's
			grace := b.clock.NewTimer(g)
			a, got = awaitAnswer(t.ctx.Done(), ch, grace.C())
			grace.Stop()
			switch {
			case got == answered && a.err != nil:
				// Stopped without a move: its time was up.
				got = timedOut
				j.sess.noGrace(j.key.leg)
			case got == timedOut:
				j.sess.noGrace(j.key.leg)
			}
		}
	}
	return a, got
}

// depthName is a search's depth for the move line: "exact" for a solve.
func depthName(r engines.Result) any {
	if r.Exact {
		return "exact"
	}
	return r.Depth
}

// logMoveShort is the own move's line at the default level, for a person:
// the leg, the square, the time it took from the state's arrival, the
// depth ("exact" for a solve) and the score of an engine's move, and the
// source only when it is not the engine (task goroutine).
func (b *Bot) logMoveShort(j moveJob, c choice, took time.Duration) {
	args := []any{"match", j.key.match, "leg", j.key.leg, "square", othello.SquareName(c.move, j.size),
		"took", took.Round(time.Millisecond)}
	switch {
	case c.source == "engine" && (c.res.Depth > 0 || c.res.Exact || c.res.Nodes > 0):
		args = append(args, "depth", depthName(c.res), "score", fmt.Sprintf("%+.1f", c.res.Score))
	case c.source == "engine":
		// An engine that says nothing of its search (the spec's protocol
		// answers a move only): no depth or score to show.
	default:
		args = append(args, "source", c.source)
		if c.cause != "" {
			args = append(args, "cause", c.cause)
		}
		if c.res.Depth > 0 || c.res.Exact {
			// A fallback the quick search made (fallbackMove).
			args = append(args, "depth", depthName(c.res), "score", fmt.Sprintf("%+.1f", c.res.Score))
		}
	}
	b.moveLog(j).Info("move", args...)
}

// moveLog is the logger of a move task's lines: the bot's, or a discard
// below the default level once the match has been reported finished, so
// that nothing of a match follows its "match finished" line but at
// --verbose (task goroutine).
func (b *Bot) moveLog(j moveJob) *slog.Logger {
	if j.tally.ended() {
		return slog.New(debugOnly{b.log.Handler()})
	}
	return b.log
}

// debugOnly passes its records to h at debug level (a task's late lines).
type debugOnly struct{ h slog.Handler }

func (d debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.h.Enabled(ctx, slog.LevelDebug)
}

func (d debugOnly) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.h.Handle(ctx, r)
}

func (d debugOnly) WithAttrs(as []slog.Attr) slog.Handler { return debugOnly{d.h.WithAttrs(as)} }
func (d debugOnly) WithGroup(name string) slog.Handler    { return debugOnly{d.h.WithGroup(name)} }

// logFallback says why a fallback move is played: the first of each cause in
// a match as a warning with what happened (the engine's error: exit status
// and stderr tail, the wait, the illegal square), the others at debug
// level; the match's last line counts them all (task goroutine).
func (b *Bot) logFallback(j moveJob, cause, why string, err error) {
	args := []any{"match", j.key.match, "leg", j.key.leg, "revision", j.leg.Revision, "cause", cause, "reason", why}
	if err != nil {
		args = append(args, "err", err)
	}
	if j.tally.firstOf(cause) {
		b.moveLog(j).Warn("playing a fallback move", args...)
		return
	}
	b.log.Debug("playing a fallback move", args...)
}

// maxStopGrace bounds how long the bot waits, after an engine's time is up
// and its context ended, for the answer of an engine that stops with its
// best move so far.
const maxStopGrace = 300 * time.Millisecond

// stopGrace is the wait for a stopped engine's answer at now: at most
// maxStopGrace and an eighth of what is left on the move's clock, so that
// the grace never costs the leg its time.
func stopGrace(clk engines.Request, now time.Time) time.Duration {
	at := clk.At
	if at.IsZero() {
		at = now
	}
	left := clk.Remaining - now.Sub(at)
	return min(maxStopGrace, left/8)
}

// engineAnswer is what an engine's Move returned.
type engineAnswer struct {
	res engines.Result
	err error
}

// awaitResult is how awaitAnswer ended.
type awaitResult int

const (
	answered awaitResult = iota
	timedOut
	dropped
)

// awaitAnswer waits for the engine's answer on ch until the timer fires or
// done is closed. An answer that is there when the timer has fired is
// taken: with fewer cores than searches (the two legs' searches, a ponder)
// this goroutine may run only after both are ready, and select picks among
// ready cases at random, which would throw a move in hand away for a
// fallback.
func awaitAnswer(done <-chan struct{}, ch <-chan engineAnswer, timer <-chan time.Time) (engineAnswer, awaitResult) {
	select {
	case a := <-ch:
		return a, answered
	case <-done:
		return engineAnswer{}, dropped
	case <-timer:
		select {
		case a := <-ch:
			return a, answered
		default:
			return engineAnswer{}, timedOut
		}
	}
}

// specGrace is how much longer than the clock less the spec's margin the
// bot waits for an --engine adapter, which ends its own wait at budget_ms:
// its answer or its error, not the bot's timer, should end the move.
const specGrace = 100 * time.Millisecond

// askInBackground shows a forced turn to an --engine engine (the spec: the
// engine is run on every own turn) without waiting for it: the forced move
// goes to the server at once. The answer is read and dropped by the
// adapter; the engine stays busy with it (as long as budget_ms at most),
// which the match's next request waits out (task goroutine).
func (b *Bot) askInBackground(j moveJob, pos othello.Position, clk engines.Request) {
	if engines.SpecBudget(clk.Remaining, clk.Cap) <= 0 {
		return
	}
	if j.sess == nil {
		b.log.Warn("engine unavailable for a forced turn", "match", j.key.match, "leg", j.key.leg, "err", errNoSession)
		return
	}
	req := b.engineRequest(j, pos, clk)
	// Not the task's context: the task ends as soon as the forced move is
	// sent, and cancelling the engine's wait would cost its process.
	ctx, cancel := context.WithTimeout(b.abort, clk.Remaining-engines.SpecMargin+specGrace)
	b.tasks.Add(1)
	go func() {
		defer b.tasks.Done()
		defer cancel()
		// The session's close waits for this ask.
		if _, err := j.sess.s.Move(ctx, j.key.leg, req); err != nil && ctx.Err() == nil {
			b.log.Warn("engine failed on a forced turn", "match", j.key.match, "leg", j.key.leg,
				"revision", j.leg.Revision, "err", err)
			if !errors.Is(err, engines.ErrNotReady) {
				b.afterFailure(j, true)
			}
		}
	}()
}

// engineRequest is the request for the engine: the position, the clock
// and, for engines that read it (Engines.Wire or SpecTimed), the spec's
// wire form.
func (b *Bot) engineRequest(j moveJob, pos othello.Position, clk engines.Request) engines.Request {
	clk.Position, clk.Leg = pos, j.key.leg
	if b.opts.Engine.Wire || b.opts.Engine.SpecTimed {
		wire := b.wireRequest(j, pos, clk)
		clk.Wire = &wire
	}
	return clk
}

// wireRequest builds the spec's 15-field engine request. Its remaining_ms
// and budget_ms are the spec's at the time the clock was read; an adapter
// that writes the request later fills them again (Request.ClockAt).
func (b *Bot) wireRequest(j moveJob, pos othello.Position, clk engines.Request) othello.EngineRequest {
	w := othello.NewEngineRequest(pos)
	w.Board = slices.Clone(j.leg.Board)
	w.Color = j.color
	w.LegalMoves = slices.Clone(j.leg.LegalMoves)
	w.GameMode = j.modeName
	w.BoardSize = j.size
	w.BlockedSquares = slices.Clone(j.blocked)
	w.Placed = othello.Placed(j.leg.Placed)
	remaining, budget := clk.ClockAt(clk.At)
	w.RemainingMS = remaining.Milliseconds()
	w.MatchID = j.key.match
	w.Leg = j.key.leg
	w.Revision = j.leg.Revision
	hist := j.leg.History
	if hist == nil {
		hist = []flipsight.HistoryEntry{}
	}
	if raw, err := json.Marshal(hist); err == nil {
		w.History = raw
	}
	if j.roundNo != nil {
		r := int(*j.roundNo)
		w.RoundNo = &r
	}
	w.RoomCreatedAt = j.roomCreatedAt
	w.BudgetMS = budget.Milliseconds()
	return w
}

// send posts the move, handling refusals and lost answers (task goroutine).
func (b *Bot) send(j moveJob, t *moveTask, pos *othello.Position, c choice, deadline, start time.Time) taskMsg {
	refused := maps.Clone(j.refused)
	if refused == nil {
		refused = map[int]bool{}
	}
	conflicts := 0
	for attempt := 0; ; attempt++ {
		req := flipsight.MoveRequest{MatchID: j.key.match, Leg: j.key.leg, Revision: t.rev,
			Move: flipsight.SquareMove(c.move)}
		if j.human {
			req.RoundNo, req.RoomCreatedAt = j.roundNo, j.roomCreatedAt
		}
		if b.abort.Err() != nil {
			return taskMsg{}
		}
		// Noted before the move goes out: the match may end (and be
		// recorded) before this task reports back.
		b.noteSearch(j.key, len(j.leg.History), c)
		// A short attempt: a lost answer is recovered by the re-poll and
		// resend below, which beats waiting out a dead connection.
		timeout := min(5*time.Second, max(time.Second, deadline.Sub(b.clock.Now())/4))
		ctx, cancel := context.WithTimeout(b.abort, timeout)
		_, err := b.c.Move(ctx, req)
		cancel()
		if err == nil {
			done := b.clock.Now()
			if !b.opts.MoveDetail {
				b.logMoveShort(j, c, done.Sub(start))
			}
			args := []any{"match", j.key.match, "leg", j.key.leg, "revision", t.rev,
				"move", othello.SquareName(c.move, j.size), "source", c.source, "depth", c.res.Depth,
				"exact", c.res.Exact, "score", c.res.Score, "nodes", c.res.Nodes, "engine_ms", c.res.Elapsed.Milliseconds(),
				"wait_ms", c.waited.Milliseconds(), "budget_ms", c.budget.Milliseconds(),
				"total_ms", done.Sub(start).Milliseconds(), "remaining_ms", deadline.Sub(done).Milliseconds(),
				"moves_left", c.movesLeft, "overhead_est_ms", c.overhead.Milliseconds(),
				// The clock's time before this task started: the server's
				// until the state arrived, then the loop's.
				"pre_ms", (time.Duration(max(0, j.serverNow-j.leg.TurnStartedMS))*time.Millisecond + start.Sub(j.arrived)).Milliseconds()}
			if c.cause != "" {
				args = append(args, "cause", c.cause)
			}
			if attempt == 0 {
				// Moves delivered at the first try measure the steady
				// overhead; a retry's wait is a fault's, paid once.
				o := moveOverhead(j, done, c)
				b.over.Observe(o)
				args = append(args, "overhead_ms", o.Milliseconds())
			}
			if b.opts.MoveDetail {
				b.moveLog(j).Info("move", args...)
			} else {
				b.log.Debug("move detail", args...)
			}
			j.tally.add(c.source, c.cause)
			return taskMsg{sent: &Search{Move: c.move, Revision: t.rev, Ply: len(j.leg.History), Source: c.source, Cause: c.cause,
				Depth: c.res.Depth, Exact: c.res.Exact, Score: c.res.Score,
				ElapsedMS: b.clock.Now().Sub(j.arrived).Milliseconds()}}
		}
		switch {
		case flipsight.IsAuth(err):
			return taskMsg{fatal: err}
		case flipsight.IsIllegal(err):
			// Never resend a refused move; the board did not change, so a
			// different legal move at the same revision can still save the
			// leg from a time loss.
			refused[c.move] = true
			b.log.Error("server refused the move", "match", j.key.match, "leg", j.key.leg, "revision", t.rev,
				"move", othello.SquareName(c.move, j.size), "err", err)
			mv, ok := quickMove(pos, j.leg.LegalMoves, refused)
			if !ok || len(refused) > 2 {
				return taskMsg{poll: true}
			}
			c = choice{move: mv, source: "fallback", cause: CauseRefused}
			continue
		case flipsight.IsConflict(err):
			// Stale revision, not my turn, leg over, …: re-poll; the move
			// goes again only if the leg is still at this revision and mine.
			conflicts++
			b.log.Info("move refused by the state; re-polling", "match", j.key.match, "leg", j.key.leg,
				"revision", t.rev, "err", err)
			if conflicts > 3 || !b.refresh(t.key, t.rev, deadline) {
				return taskMsg{}
			}
			continue
		case !moveRetryable(err):
			// 400, 403, 405, 413, …: the spec retries only lost
			// connections, 503 and 429; the same request would be refused
			// again. The leg is played again from a fresh poll, without
			// this move (onTask).
			b.log.Error("server refused the move request; not retrying it", "match", j.key.match, "leg", j.key.leg,
				"revision", t.rev, "move", othello.SquareName(c.move, j.size), "err", err)
			return taskMsg{poll: true, refusal: &refusal{rev: t.rev, move: c.move}}
		}
		// The answer is lost or the server is busy: fetch the state and
		// resend the same move only if the revision is unchanged.
		now := b.clock.Now()
		if !now.Before(deadline) {
			b.log.Error("move could not be delivered before the clock ran out", "match", j.key.match, "leg", j.key.leg, "err", err)
			return taskMsg{poll: true}
		}
		wait := min(time.Duration(100<<min(attempt, 4))*time.Millisecond, time.Second)
		if e := flipsight.AsAPIError(err); e != nil && e.RetryAfter > wait {
			wait = e.RetryAfter
		}
		wait = min(wait, deadline.Sub(now)/2)
		b.log.Warn("move answer lost; checking the state before resending", "match", j.key.match, "leg", j.key.leg,
			"revision", t.rev, "err", err, "retry_in", wait)
		if !b.sleep(b.abort, wait) {
			return taskMsg{}
		}
		// The state check waits a second at most, and a quarter of the
		// clock left near its end: while the server is away the loop's
		// polls back off for seconds, and a check that waited for them
		// held a move past the server's return until its clock ran out
		// (the soak: a 3-s restart with 3.8 s on the clock). Unchecked, the
		// move goes again as it is: its revision makes the server refuse
		// it if the leg has moved on.
		now = b.clock.Now()
		if !b.refresh(t.key, t.rev, now.Add(min(max(wait, time.Second), deadline.Sub(now)/4))) {
			b.log.Info("leg moved on; not resending", "match", j.key.match, "leg", j.key.leg, "revision", t.rev)
			return taskMsg{}
		}
	}
}

// moveRetryable reports whether a failed agent_move may be sent again (after
// checking the state): a connection failure (no answer, or no HTTP status),
// 503 (bot match storage unavailable) and 429, as the spec's error handling
// says; never another status.
func moveRetryable(err error) bool {
	if errors.Is(err, flipsight.ErrRefusedURL) || errors.Is(err, flipsight.ErrNoToken) ||
		errors.Is(err, flipsight.ErrResponseTooLarge) || errors.Is(err, context.Canceled) {
		return false
	}
	e := flipsight.AsAPIError(err)
	return e == nil || e.Status == http.StatusServiceUnavailable || e.Status == http.StatusTooManyRequests
}

// moveOverhead is what a move cost on the clock besides the engine's
// think: the local time from the state's arrival until the move's answer
// (done), less the engine wait up to its budget and a fallback's quick
// search (c.waited, c.budget, c.quick). The turn's time on the
// server before its state arrived is not counted: it is the delivery of the
// state (a poll's interval without a stream), which the clock has already
// paid when the move is planned, not a cost of each move left. A wait past
// the budget is overhead: the timer fired but the bot was not scheduled (a
// starved machine: the soak saw 1.9 s waits on 1 s budgets at the 99th
// percentile).
func moveOverhead(j moveJob, done time.Time, c choice) time.Duration {
	return max(0, done.Sub(j.arrived)-min(c.waited, c.budget)-c.quick)
}

// refresh asks the loop to poll and reports whether (key, rev) is still
// the bot's move (task goroutine). Without an answer before the deadline it
// reports true: the server refuses a stale revision anyway.
func (b *Bot) refresh(key legKey, rev int64, deadline time.Time) bool {
	r := refreshReq{key: key, rev: rev, reply: make(chan bool, 1)}
	b.refreshes <- r
	t := b.clock.NewTimer(max(0, clock.Until(b.clock, deadline)))
	defer t.Stop()
	select {
	case ok := <-r.reply:
		return ok
	case <-t.C():
		return true
	case <-b.abort.Done():
		return false
	}
}

// noteSearch keeps how the move at history index ply was found, for the
// record (task goroutine).
func (b *Bot) noteSearch(key legKey, ply int, c choice) {
	if b.opts.Records == nil {
		return
	}
	sr := record.Search{Source: c.source, Depth: c.res.Depth, Exact: c.res.Exact}
	if sr.Source == "engine" && (sr.Depth > 0 || sr.Exact) {
		sr.Score, sr.HasScore = c.res.Score, true
	}
	b.searchMu.Lock()
	defer b.searchMu.Unlock()
	if b.searches[key] == nil {
		b.searches[key] = map[int]record.Search{}
	}
	b.searches[key][ply] = sr
}

// takeSearches returns and forgets the searches noted for key (loop).
func (b *Bot) takeSearches(key legKey) map[int]record.Search {
	b.searchMu.Lock()
	defer b.searchMu.Unlock()
	s := b.searches[key]
	delete(b.searches, key)
	return s
}
