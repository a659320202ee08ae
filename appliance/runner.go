package appliance

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/flipsight"
)

// ErrTokenRejected is returned by a [Player] or a [TokenChecker] when
// FlipSight refuses the token (401 invalid bot credential). The appliance
// then waits for a new token instead of retrying.
var ErrTokenRejected = errors.New("FlipSight rejected the bot token")

// ErrEngine is returned (wrapped) by a [Player] whose engine failed its
// check before going online: the runner shows why and checks again every
// engineRetry, the bot offline meanwhile.
var ErrEngine = errors.New("the engine does not answer")

// EngineProbeTimeout bounds the check of the device's Egaroucid before the
// bot goes online. flipbot's --egaroucid allows 30 s on a PC (13–27 s
// measured on a loaded 2-core VM); a Pi's cores are slower and its
// start-up is not measured yet: 60 s.
const EngineProbeTimeout = 60 * time.Second

// engineRetry is how often an engine that failed its check is checked
// again.
const engineRetry = time.Minute

// errStopNow is the cause of a play's cancellation that abandons the
// running matches (a new token, new settings): only a shutdown (SIGTERM)
// waits for them.
var errStopNow = errors.New("the token or the settings changed")

// ErrNetwork wraps failures to reach the server at all (DNS, connect,
// TLS), which the state shows as "no network".
var ErrNetwork = errors.New("cannot reach FlipSight")

// Player plays on FlipSight with a token until ctx is cancelled; then it
// accepts nothing new, plays the running matches to their end (bounded by
// its drain) and returns, or, when ctx's cause is errStopNow (the token or
// the settings changed), only finishes the moves in flight. It calls
// report with the bot's status whenever it changes (report must not be
// retained past the return). It returns ErrTokenRejected (wrapped) for a
// refused token; any other error is retried by the appliance with a
// backoff.
type Player interface {
	Play(ctx context.Context, token flipsight.Token, s settings.Settings, report func(bot.Status)) error
}

// TokenChecker checks a token with a real agent_poll before it is kept.
// It returns ErrTokenRejected (wrapped) for a refused token, an error
// wrapping ErrNetwork when the server cannot be reached, and the bot's
// identity on success. Errors must not contain the token.
type TokenChecker interface {
	CheckToken(ctx context.Context, token flipsight.Token) (state.BotInfo, error)
}

// Backoff of the bot restarts: gokrazy restarts a process after 1 s
// forever, so retrying happens here, inside the process, with growing waits.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
	// A play that lasted this long resets the backoff.
	stablePlay = time.Minute
)

// settingsCmd hands the runner new settings.
type settingsCmd struct {
	settings settings.Settings
	done     chan struct{}
}

// tokenWant is the token the runner is to play with next: the last one
// handed over by setToken and not yet taken by the loop.
type tokenWant struct {
	tok flipsight.Token
	// who is whom FlipSight said the token names (zero: not known).
	who state.BotInfo
}

// runner keeps the Player running while a usable token is in effect: it
// starts it, restarts it with a backoff after a failure, stops and restarts
// it when the token changes, applies new settings when no match runs, and
// drains it on shutdown. One goroutine (run, "the loop") owns its state;
// others hand it a token (setToken: never waits) or settings (cmds). The
// token is the tokenOwner's: the runner only plays what it was last
// handed. The runner is the one writer of the status's report
// (state.Report): the loop writes how plays start and end, setToken (on
// the owner's goroutine, under mu) whom a new token names, report (on the
// bot's goroutine, under mu) what the bot says. It decides from what the
// bot reports, never from reading the status back.
type runner struct {
	player Player
	hub    *state.Hub
	log    *slog.Logger
	// drain bounds the play's wait for the running matches on shutdown,
	// moveDrain its wait for the moves in flight after that (and on a
	// switch); the runner leaves a play that is not done by their sum.
	drain, moveDrain time.Duration
	cmds             chan settingsCmd
	idle             chan struct{}
	// wake tells the loop that want changed; stopped is closed when the
	// loop has returned.
	wake    chan struct{}
	stopped chan struct{}

	wantMu sync.Mutex // guards want
	want   *tokenWant

	// mu guards current and matches; report and setToken hold it while
	// they write, so that a report of a play being stopped never lands
	// after the loop's or setToken's own writes.
	mu sync.Mutex
	// current is the play whose reports are published; nil while none
	// runs and once the loop stops it.
	current *play
	// matches is how many matches the current play's bot last reported:
	// new settings wait for 0.
	matches int
	// onMatches, when set, is told whether a match runs whenever matches
	// is written (under mu; it must not block): the background analysis
	// stops at once when one starts.
	onMatches func(busy bool)
	// onBot, when set, gets the bot's identity from every report (on the
	// bot's goroutine): the rating history samples it.
	onBot func(state.BotInfo)
	// onResults, when set, gets the recent results after every report
	// (on the bot's goroutine): they are kept on /perm.
	onResults func([]state.Result)
}

func newRunner(p Player, hub *state.Hub, log *slog.Logger, drain, moveDrain time.Duration) *runner {
	return &runner{player: p, hub: hub, log: log, drain: drain, moveDrain: moveDrain, cmds: make(chan settingsCmd),
		idle: make(chan struct{}, 1), wake: make(chan struct{}, 1), stopped: make(chan struct{})}
}

// setToken makes tok the token to play with, who being whom FlipSight
// said it names (zero when not known); a zero tok stops the bot. It
// returns at once: the old play's reports are no longer published, the
// report names the new bot (none for a zero tok), and the loop stops the
// old play (which may take the moves in flight, up to moveDrain) and
// starts the new one; of tokens handed over meanwhile, the last is
// played. Only the tokenOwner calls it.
func (r *runner) setToken(tok flipsight.Token, who state.BotInfo) {
	r.mu.Lock()
	r.detach()
	r.writeReport(func(rp *state.Report) { newToken(rp, tok, who) })
	r.mu.Unlock()
	r.wantMu.Lock()
	r.want = &tokenWant{tok: tok, who: who}
	r.wantMu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// takeWant returns the token last handed over and not yet taken (nil:
// none). (loop)
func (r *runner) takeWant() *tokenWant {
	r.wantMu.Lock()
	defer r.wantMu.Unlock()
	w := r.want
	r.want = nil
	return w
}

// setSettings applies s now when no match runs, else when the last one
// ends. It returns once the loop has taken them (and, when no match runs,
// restarted the bot with them), or the loop has ended.
func (r *runner) setSettings(s settings.Settings) {
	c := settingsCmd{settings: s, done: make(chan struct{})}
	select {
	case r.cmds <- c:
		select {
		case <-c.done:
		case <-r.stopped:
		}
	case <-r.stopped:
	}
}

type play struct {
	cancel  context.CancelCauseFunc
	done    chan error
	started time.Time
}

// writeReport changes the status's report. (loop, or report under mu)
func (r *runner) writeReport(f func(*state.Report)) {
	r.hub.Update(func(st *state.Status) { f(&st.Report) })
}

// follow makes p the play whose reports are published (nil: none), with no
// match reported yet. (loop)
func (r *runner) follow(p *play) {
	r.mu.Lock()
	r.detach()
	r.current = p
	r.mu.Unlock()
}

// detach stops publishing the current play's reports (none reported a
// match then). (mu held)
func (r *runner) detach() {
	r.current, r.matches = nil, 0
	if r.onMatches != nil {
		r.onMatches(false)
	}
}

// newToken is the report once tok, naming who (zero: not known), is handed
// over: not rejected; no bot at all for a zero tok.
func newToken(rp *state.Report, tok flipsight.Token, who state.BotInfo) {
	rp.Rejected = false
	switch {
	case tok.IsZero():
		rp.Online, rp.NetworkDown, rp.Bot = false, false, state.BotInfo{}
	case who != (state.BotInfo{}):
		rp.Bot = who
	}
}

// inMatch reports whether the current play's bot last reported a match. (loop)
func (r *runner) inMatch() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.matches > 0
}

// refuse shows that the token in effect cannot be used at all, as a token
// FlipSight rejected, for the reason why. (before the loop starts)
func (r *runner) refuse(why string) {
	r.writeReport(func(rp *state.Report) { rp.Rejected, rp.Detail = true, why })
}

// run is the runner's loop, playing with s and the token handed over by
// setToken (none at first); it returns after draining when ctx ends.
func (r *runner) run(ctx context.Context, s settings.Settings) {
	defer close(r.stopped)
	var (
		tok      flipsight.Token
		cur      *play
		rejected bool
		pending  *settings.Settings
		backoff  = minBackoff
		retry    *time.Timer
		retryC   <-chan time.Time
	)
	start := func() {
		pctx, cancel := context.WithCancelCause(context.Background())
		p := &play{cancel: cancel, done: make(chan error, 1), started: time.Now()}
		cur = p
		r.writeReport(func(rp *state.Report) {
			rp.Online, rp.Rejected, rp.NetworkDown, rp.Matches = false, false, false, nil
			if !rp.EngineFailed {
				rp.Detail = "" // an engine's failure stays shown until it answers
			}
		})
		r.follow(p)
		token, set := tok, s
		go func() {
			p.done <- r.player.Play(pctx, token, set, func(rep bot.Status) { r.report(p, rep) })
		}()
	}
	// stop ends the current play: on shutdown (drain) its running matches
	// are played to their end, else (a switch) they are abandoned.
	stop := func(drain bool) {
		if cur == nil {
			return
		}
		r.follow(nil)
		wait := r.moveDrain + time.Second
		if drain {
			cur.cancel(nil)
			wait += r.drain
		} else {
			cur.cancel(errStopNow)
		}
		t := time.NewTimer(wait)
		select {
		case <-cur.done:
		case <-t.C:
			r.log.Warn("the bot did not stop within the drain time; leaving it", "wait", wait)
		}
		t.Stop()
		cur = nil
		r.writeReport(func(rp *state.Report) { rp.Online, rp.Matches = false, nil })
	}
	stopRetry := func() {
		if retry != nil {
			retry.Stop()
			retry, retryC = nil, nil
		}
	}
	apply := func(next settings.Settings) {
		s, pending = next, nil
		stop(false)
		stopRetry() // new settings (another engine) are tried at once
		r.hub.Update(func(st *state.Status) { st.Engine = s.EngineSettings() })
	}
	for {
		if cur == nil && !tok.IsZero() && !rejected && retryC == nil {
			start()
		}
		var done chan error
		if cur != nil {
			done = cur.done
		}
		select {
		case <-ctx.Done():
			stopRetry()
			stop(true)
			return
		case <-r.wake:
			w := r.takeWant()
			if w == nil {
				continue
			}
			stop(false)
			stopRetry()
			tok, rejected, backoff = w.tok, false, minBackoff
			r.writeReport(func(rp *state.Report) { newToken(rp, w.tok, w.who) })
		case c := <-r.cmds:
			pending = &c.settings
			if cur == nil || !r.inMatch() {
				apply(*pending)
			}
			close(c.done)
		case <-r.idle:
			if pending != nil && !r.inMatch() {
				r.log.Info("applying new settings now that no match runs")
				apply(*pending)
			}
		case err := <-done:
			lasted := time.Since(cur.started)
			r.follow(nil)
			cur.cancel(nil)
			cur = nil
			if errors.Is(err, ErrTokenRejected) {
				rejected = true
				r.log.Error("FlipSight rejected the bot token; enter a new one on the token page")
				r.writeReport(func(rp *state.Report) {
					rp.Rejected, rp.Online, rp.Matches = true, false, nil
					rp.Detail = "FlipSight rejected the token (401)"
				})
				continue
			}
			if errors.Is(err, ErrEngine) {
				r.log.Error("the engine failed its check; staying offline", "err", err, "next_check", engineRetry)
				r.writeReport(func(rp *state.Report) {
					rp.Online, rp.Matches, rp.NetworkDown, rp.EngineFailed = false, nil, false, true
					rp.Detail = err.Error() + "; checking again in " + engineRetry.String()
				})
				retry = time.NewTimer(engineRetry)
				retryC = retry.C
				continue
			}
			if lasted >= stablePlay {
				backoff = minBackoff
			}
			msg := "the bot stopped"
			if err != nil {
				msg = err.Error()
			}
			r.log.Warn("bot stopped; retrying", "err", msg, "in", backoff)
			r.writeReport(func(rp *state.Report) {
				rp.Online, rp.Matches = false, nil
				rp.NetworkDown = errors.Is(err, ErrNetwork)
				rp.Detail = msg + "; retrying in " + backoff.String()
			})
			retry = time.NewTimer(backoff)
			retryC = retry.C
			backoff = min(2*backoff, maxBackoff)
		case <-retryC:
			retry, retryC = nil, nil
		}
	}
}

// report publishes a Player's report if p is still the current play, and
// wakes the loop when the bot reports no match. (the bot's goroutine)
func (r *runner) report(p *play, rep bot.Status) {
	r.mu.Lock()
	if r.current != p {
		r.mu.Unlock()
		return
	}
	r.matches = len(rep.Matches)
	if r.onMatches != nil {
		r.onMatches(r.matches > 0)
	}
	var results []state.Result
	r.writeReport(func(rp *state.Report) {
		*rp = reportOf(*rp, rep)
		results = slices.Clone(rp.Results)
	})
	r.mu.Unlock()
	if r.onBot != nil {
		r.onBot(botInfoOf(rep.Bot))
	}
	if r.onResults != nil {
		r.onResults(results)
	}
	if len(rep.Matches) == 0 {
		select {
		case r.idle <- struct{}{}:
		default:
		}
	}
}
