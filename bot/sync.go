package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/wait"
)

// streamMsg is what the stream reader tells the loop.
type streamMsg struct {
	up, down bool
	ev       *flipsight.Event
	arrived  time.Time
	err      error
}

// streamWorked is how long a stream must have stayed up to reset the
// reconnect backoff. The spec grows the interval "from 1 s to 30 s" when
// the connection is cut: a cut after the stream worked starts again at
// 1 s. Two seconds tell a stream that worked from a server that says hello
// and breaks at once (which keeps its backoff); at 10 s a stream cut 8.8 s
// after it came back waited 7.9 s, and the leg, at its end, was lost on
// one-a-second polls (the soak).
const streamWorked = 2 * time.Second

// runStream keeps the event stream open until ctx ends: it reconnects with
// a backoff of BackoffMin doubling to BackoffMax, with jitter that never
// leaves those bounds (retryWait), reset after a stream that stayed up for
// streamWorked, and cut short once an outage when a poll gets through after
// a connection that failed with no answer (sleepOrServerBack); it forwards
// events to the loop and only decodes; the loop does the rest.
func (b *Bot) runStream(ctx context.Context) {
	backoff := b.t.BackoffMin
	// kicked: a reconnect since the stream was last up came early, on a
	// poll's word that the server was back (at most one per outage).
	kicked := false
	for ctx.Err() == nil {
		s, err := b.c.OpenStream(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			b.sendStream(ctx, streamMsg{down: true, err: err})
			if flipsight.IsAuth(err) {
				return
			}
			wait := b.t.retryWait(backoff)
			e := flipsight.AsAPIError(err)
			if e != nil && e.RetryAfter > wait {
				wait = e.RetryAfter
			}
			b.log.Warn("event stream unavailable; polling meanwhile", "err", err, "retry_in", wait.Round(time.Millisecond))
			// A connection that failed with no HTTP answer (the server
			// away: a restart) is tried again as soon as a poll gets
			// through, once an outage: the backoff its failures grew while
			// the server was away would otherwise leave the bot on
			// one-a-second polls, a second of a short clock per move (the
			// soak lost a leg so, the server back for 4.6 s). An answer
			// with a status (429, 503, …) keeps its backoff.
			early := !kicked && e == nil
			woke, ok := b.sleepOrServerBack(ctx, wait, early)
			if !ok {
				return
			}
			kicked = kicked || woke
			backoff = min(backoff*2, b.t.BackoffMax)
			continue
		}
		kicked = false
		b.sendStream(ctx, streamMsg{up: true})
		connected := b.clock.Now()
		for {
			ev, err := s.Next()
			if err != nil {
				if errors.Is(err, flipsight.ErrBadEvent) {
					b.serverWarn.Warn("skipping a bad stream line", "err", err)
					continue
				}
				s.Close()
				if ctx.Err() != nil {
					return
				}
				if errors.Is(err, io.EOF) {
					err = errors.New("stream closed by the server")
				}
				b.sendStream(ctx, streamMsg{down: true, err: err})
				break
			}
			b.sendStream(ctx, streamMsg{ev: &ev, arrived: b.clock.Now()})
		}
		// A stream that worked resets the backoff: one that stayed up
		// streamWorked (or the longest backoff, if shorter). A server that
		// says hello and then breaks the stream (an oversized line, a cut)
		// keeps its backoff; a stream cut in a match after it had worked is
		// back in a second, not after the backoff its last outage grew to
		// (in the soak: 8.4 s of one-a-second polls at the end of a leg, a
		// second of the clock for each move, and the leg lost on time).
		if clock.Since(b.clock, connected) >= min(streamWorked, b.t.BackoffMax) {
			backoff = b.t.BackoffMin
		}
		wait := b.t.retryWait(backoff)
		b.log.Warn("event stream lost; reconnecting, polling meanwhile", "retry_in", wait.Round(time.Millisecond))
		if !b.sleep(ctx, wait) {
			return
		}
		backoff = min(backoff*2, b.t.BackoffMax)
	}
}

func (b *Bot) sendStream(ctx context.Context, m streamMsg) {
	select {
	case b.streamMsgs <- m:
	case <-ctx.Done():
	}
}

// jitter spreads d over [0.75 d, 1.25 d].
func jitter(d time.Duration) time.Duration {
	return d*3/4 + time.Duration(rand.Int64N(int64(d)/2+1))
}

// retryWait is the wait before reconnecting the stream after backoff d:
// d with jitter, within [BackoffMin, BackoffMax]. The spec's intervals grow
// from 1 s to 30 s; jitter spreads the bots' reconnections but never
// brings one below the 1 s floor (nor above the 30 s ceiling).
func (t Timing) retryWait(d time.Duration) time.Duration {
	return min(max(jitter(d), t.BackoffMin), t.BackoffMax)
}

// sleepOrServerBack waits for d, or, when early, until the loop says a
// poll got through (serverBack), whichever comes first; a word from before
// the wait is dropped. It reports whether the word ended the wait, and ok
// false when ctx ended.
func (b *Bot) sleepOrServerBack(ctx context.Context, d time.Duration, early bool) (woke, ok bool) {
	select {
	case <-b.serverBack:
	default:
	}
	if !early {
		return false, b.sleep(ctx, d)
	}
	t := b.clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C():
		return false, true
	case <-b.serverBack:
		return true, true
	case <-ctx.Done():
		return false, false
	}
}

// sleep waits for d or until ctx ends, and reports whether d passed
// (internal/wait.Sleep; the bool suits the loops in sync.go and leg.go).
func (b *Bot) sleep(ctx context.Context, d time.Duration) bool {
	return wait.Sleep(ctx, b.clock, d) == nil
}

// onStream handles a message of the stream reader (loop).
func (b *Bot) onStream(m streamMsg) {
	switch {
	case m.up:
		b.streamUp = true
		b.log.Info("event stream connected")
		if !b.draining && b.fatal == nil {
			b.setState(StateOnline)
		}
		// Re-sync after every (re)connect.
		b.startPoll()
	case m.down:
		if flipsight.IsAuth(m.err) {
			b.fail(m.err)
			return
		}
		b.noteErr(m.err)
		if b.streamUp {
			b.streamUp = false
		}
		if !b.draining && b.fatal == nil {
			b.setState(StateConnecting)
		}
		// Polls take over at their own pace: brought forward from the
		// stream's 10 s, never pushed back by each failed reconnection
		// (which would leave an idle bot unpolled while the stream flaps).
		b.armPoll(b.pollInterval())
	case m.ev != nil:
		b.onEvent(*m.ev, m.arrived)
	}
}

// onEvent handles one stream event (loop).
func (b *Bot) onEvent(ev flipsight.Event, arrived time.Time) {
	switch ev.Type {
	case flipsight.EventHello:
		if ev.BotID != 0 && b.me == 0 {
			b.me = ev.BotID
		}
	case flipsight.EventMatch:
		m := ev.Match
		if m.State != nil && !m.IsHuman() && b.me != 0 {
			// Bot-vs-bot events carry the whole match: play on at once;
			// the poll the spec asks for follows at the usual pace.
			b.observe(*m, ev.ServerNowMS, arrived)
			b.publish()
			b.startPoll()
			return
		}
		// A human match's event carries only its id: the state (maybe the
		// bot's turn, its clock running) comes with the poll, as soon as
		// the spec's once-a-second rule allows.
		b.startPoll()
	}
}

// pollTimeout bounds one agent_poll: a poll stuck on a dead connection
// must not leave the bot blind for long (only one poll runs at a time).
const pollTimeout = 6 * time.Second

// pollResult is an agent_poll answer for the loop.
type pollResult struct {
	resp    *flipsight.PollResponse
	err     error
	started time.Time // real time the loop asked for it
	sent    time.Time // real time its request was written (zero: never)
	arrived time.Time
}

// startPoll runs agent_poll now, or as soon as the rules allow; a request
// made while a poll is in flight runs once it returns (loop).
//
// The spec's one-second floor is a rule for polling without the stream
// (「ストリームなしでポーリングする場合は…1秒に1回より頻繁には呼ばないでください」):
// with the stream up, a match event is answered by a poll at once, which
// is the only way a human match's turn (its event carries only the id)
// reaches the bot within a round trip. Polls never overlap, so a flood of
// events costs one poll in flight and one queued, not more.
func (b *Bot) startPoll() {
	if b.polling {
		b.pollAgain = true
		return
	}
	now := b.clock.Now()
	if gap := b.minPollGap() - now.Sub(b.lastPoll); !b.streamUp && !b.lastPoll.IsZero() && gap > 0 {
		b.armPoll(gap)
		return
	}
	if now.Before(b.pollHold) {
		b.armPoll(b.pollHold.Sub(now))
		return
	}
	b.polling = true
	b.lastPoll = now
	// Refresh requests made before this poll started are answered by it.
	b.waiting = append(b.waiting, b.pollWaiting...)
	b.pollWaiting = nil
	env := b.env
	if d := b.opts.Engine.Describe; d != nil {
		env.Engine = d()
	}
	env.Engine = b.engineLabel(env.Engine)
	started := now
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), pollTimeout)
		defer cancel()
		// The floor holds as the server sees it: measured from when the
		// request was written, not from when the loop asked for it (a
		// loaded machine may run this goroutine hundreds of milliseconds
		// later).
		var sent atomic.Int64
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { sent.Store(b.clock.Now().UnixNano()) },
		})
		resp, err := b.c.Poll(ctx, &env)
		r := pollResult{resp: resp, err: err, started: started, arrived: b.clock.Now()}
		if ns := sent.Load(); ns != 0 {
			r.sent = time.Unix(0, ns)
		}
		b.pollDone <- r
	}()
}

// minPollGap is the least time between the starts of two polls without the
// stream: the spec's second and a twentieth of it, which covers the
// difference between when a request is written here and when it reaches
// the server (the server saw gaps of 0.68–0.94 s under load when the gap
// was counted from the loop's decision with no margin).
func (b *Bot) minPollGap() time.Duration {
	return b.t.MinPollGap + b.t.MinPollGap/20
}

// armPoll makes the poll timer fire within d: an armed timer that would
// fire later is moved earlier (loop).
func (b *Bot) armPoll(d time.Duration) {
	at := b.clock.Now().Add(d)
	if b.pollTimerSet {
		if !at.Before(b.pollTimerAt) {
			return
		}
		b.stopPollTimer()
	}
	b.pollTimer.Reset(d)
	b.pollTimerSet, b.pollTimerAt = true, at
}

func (b *Bot) stopPollTimer() {
	if b.pollTimerSet && !b.pollTimer.Stop() {
		select {
		case <-b.pollTimer.C():
		default:
		}
	}
	b.pollTimerSet = false
}

// pollInterval is the spec's poll interval for the current situation:
// 10 s with the stream up, else 1 s in a match and 5 s idle (loop).
func (b *Bot) pollInterval() time.Duration {
	switch {
	case b.streamUp:
		return b.t.PollStream
	case len(b.matches) > 0:
		return b.t.PollMatch
	}
	return b.t.PollIdle
}

// schedulePoll arms the periodic poll one interval after the last poll
// began, not after its answer came: a poll a second means a second between
// their starts, so the answer's round trip (hundreds of milliseconds to a
// distant server) is not added to every own turn seen through a poll (loop).
func (b *Bot) schedulePoll() {
	b.stopPollTimer()
	d := b.pollInterval()
	if !b.streamUp {
		d = max(d, b.minPollGap())
	}
	if !b.lastPoll.IsZero() {
		d -= clock.Since(b.clock, b.lastPoll)
	}
	b.armPoll(max(d, 0))
}

// onPoll handles an agent_poll answer (loop).
func (b *Bot) onPoll(r pollResult) {
	b.polling = false
	waiting := b.waiting
	b.waiting = nil
	defer func() {
		for _, w := range waiting {
			w.reply <- b.stillMyMove(w.key, w.rev)
		}
		if b.pollAgain {
			b.pollAgain = false
			b.startPoll()
		} else {
			b.schedulePoll()
		}
	}()
	if r.sent.After(b.lastPoll) {
		b.lastPoll = r.sent
	}
	if r.err != nil {
		if flipsight.IsAuth(r.err) {
			b.fail(r.err)
			return
		}
		b.pollFailures++
		hold := b.pollBackoff(b.pollFailures)
		if e := flipsight.AsAPIError(r.err); e != nil && e.RetryAfter > hold {
			hold = min(e.RetryAfter, 30*time.Second)
		}
		b.pollHold = b.clock.Now().Add(hold)
		b.serverWarn.Warn("agent_poll failed", "err", r.err, "failures", b.pollFailures, "next_in", max(hold, b.pollInterval()).Round(time.Millisecond))
		b.noteMisdirected(r.err)
		b.noteErr(r.err)
		return
	}
	b.misdirected = 0
	defer b.maybeProbe()
	b.pollFailures, b.pollHold = 0, time.Time{}
	if !b.streamUp {
		select {
		case b.serverBack <- struct{}{}:
		default:
		}
	}
	b.noteErr(nil)
	resp := r.resp
	for _, err := range resp.Refused {
		b.serverWarn.Warn("refusing a bad object from the server", "err", err)
	}
	if resp.Bot != nil {
		b.me = resp.Bot.ID
		b.botInfo = botInfo(resp.Bot)
		if !b.introduced {
			b.introduced = true
			i := b.botInfo
			args := []any{"name", i.Name, "id", i.ID}
			if i.Rating > 0 {
				args = append(args, "rating", fmt.Sprintf("%.0f ± %.0f", i.Rating, i.RD),
					"record", fmt.Sprintf("%d–%d–%d", i.Wins, i.Draws, i.Losses))
			}
			b.log.Info("playing as", args...)
		}
	}
	if len(b.names) > maxRecentIDs {
		// Names only label opponents; the lists below name every bot the
		// matches in play need, so a long run starts over rather than grow.
		clear(b.names)
	}
	for _, bt := range resp.Bots {
		b.names[bt.ID] = bt.Name
	}
	for _, bt := range resp.RecordBots {
		b.names[bt.ID] = bt.Name
	}
	if b.me == 0 {
		b.log.Warn("agent_poll did not say which bot this is; waiting")
		return
	}
	seen := map[int64]bool{}
	for _, m := range resp.Matches {
		seen[m.ID] = true
		b.observe(m, resp.ServerNowMS, r.arrived)
	}
	// A tracked running match that the server no longer lists has ended:
	// absent from two polls both made after the match was first seen (an
	// older poll's answer may predate the match).
	for id, m := range b.matches {
		switch {
		case seen[id] || m.accepting || !m.running || !r.started.After(m.firstSeen):
			m.missing = 0
		default:
			m.missing++
			if m.missing >= 2 {
				b.finish(m, nil)
			}
		}
	}
	b.publish()
}

// pollBackoff is how long the next poll waits after failures consecutive
// failed polls (connection errors, 503, …): the spec's 「接続エラーと503は間隔を
// 延ばして再試行し」. The first failure keeps the usual pace; then the wait
// doubles from the current interval: in a match from the one-second floor up
// to 4 s (a turn must still be seen), idle from the idle interval up to
// 30 s, the stream's longest reconnection wait. A success returns to the
// usual intervals (loop).
func (b *Bot) pollBackoff(failures int) time.Duration {
	if failures <= 1 {
		return 0
	}
	shift := min(failures-1, 8)
	if len(b.matches) > 0 {
		return min(b.t.MinPollGap<<shift, 4*b.t.MinPollGap)
	}
	return min(b.pollInterval()<<shift, b.t.BackoffMax)
}

// misdirectedAfter is how many answers in a row that no bot API gives
// (HTTP 404, a web page) make the bot say that --api looks wrong.
const misdirectedAfter = 3

// noteMisdirected counts poll answers that no bot API gives and, at the
// misdirectedAfter'th in a row, says once that the API URL looks wrong and
// what it answered (loop).
func (b *Bot) noteMisdirected(err error) {
	what, ok := flipsight.LooksMisdirected(err)
	if !ok {
		b.misdirected = 0
		return
	}
	b.misdirected++
	if b.misdirected == misdirectedAfter {
		b.log.Error("the API URL looks wrong (check --api): it answered "+what+", which FlipSight's bot API never does",
			"api", b.c.APIURL(), "answers", b.misdirected)
	}
}

func botInfo(bt *flipsight.Bot) BotInfo {
	info := BotInfo{ID: bt.ID, Name: bt.Name}
	if r := bt.Rating; r != nil {
		info.Rating, info.RD, info.Official = r.Rating, r.RD, r.Official
		info.Wins, info.Losses, info.Draws = r.Wins, r.Losses, r.Draws
	}
	return info
}

// refreshReq asks the loop for a fresh poll and whether (key, rev) is still
// the bot's move afterwards.
type refreshReq struct {
	key   legKey
	rev   int64
	reply chan bool
}
