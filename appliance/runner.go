package appliance

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
)

// ErrTokenRejected is returned by a [Player] or a [TokenChecker] when
// FlipSight refuses the token (401 invalid bot credential). The appliance
// then waits for a new token instead of retrying.
var ErrTokenRejected = errors.New("FlipSight rejected the bot token")

// ErrNetwork wraps failures to reach the server at all (DNS, connect,
// TLS), which the state shows as "no network".
var ErrNetwork = errors.New("cannot reach FlipSight")

// Player plays on FlipSight with a token until ctx is cancelled; then it
// accepts nothing new, finishes the moves in flight and returns. It calls
// report with the bot's status whenever it changes (report must not be
// retained past the return). It returns ErrTokenRejected (wrapped) for a
// refused token; any other error is retried by the appliance with a
// backoff.
type Player interface {
	Play(ctx context.Context, token string, s Settings, report func(bot.Status)) error
}

// TokenChecker checks a token with a real agent_poll before it is kept.
// It returns ErrTokenRejected (wrapped) for a refused token, an error
// wrapping ErrNetwork when the server cannot be reached, and the bot's
// identity on success. Errors must not contain the token.
type TokenChecker interface {
	CheckToken(ctx context.Context, token string) (state.BotInfo, error)
}

// Backoff of the bot restarts: gokrazy restarts a process after 1 s
// forever, so retrying happens here, inside the process, with growing waits.
const (
	minBackoff = time.Second
	maxBackoff = time.Minute
	// A play that lasted this long resets the backoff.
	stablePlay = time.Minute
)

// runnerCmd changes what the runner plays with.
type runnerCmd struct {
	token    *string
	source   state.TokenSource
	settings *Settings
	done     chan struct{}
}

// runner keeps the Player running while a usable token is in effect: it
// starts it, restarts it with a backoff after a failure, stops and restarts
// it when the token changes, applies new settings when no match runs, and
// drains it on shutdown. One goroutine (run) owns its state; others talk to
// it through cmds.
type runner struct {
	player Player
	hub    *state.Hub
	log    *slog.Logger
	drain  time.Duration
	cmds   chan runnerCmd
	idle   chan struct{}
	// current is the play whose reports are published; reports of a play
	// being stopped are dropped.
	current atomic.Pointer[play]
}

func newRunner(p Player, hub *state.Hub, log *slog.Logger, drain time.Duration) *runner {
	return &runner{player: p, hub: hub, log: log, drain: drain, cmds: make(chan runnerCmd), idle: make(chan struct{}, 1)}
}

// setToken makes tok (from src) the token in effect; "" stops the bot.
// It returns once the old play has drained and the new one is started.
func (r *runner) setToken(ctx context.Context, tok string, src state.TokenSource) {
	c := runnerCmd{token: &tok, source: src, done: make(chan struct{})}
	select {
	case r.cmds <- c:
		select {
		case <-c.done:
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
}

// setSettings applies s now when no match runs, else when the last one ends.
func (r *runner) setSettings(ctx context.Context, s Settings) {
	c := runnerCmd{settings: &s, done: make(chan struct{})}
	select {
	case r.cmds <- c:
		select {
		case <-c.done:
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
}

type play struct {
	cancel  context.CancelFunc
	done    chan error
	started time.Time
}

// run is the runner's loop; it returns after draining when ctx ends.
func (r *runner) run(ctx context.Context, tok string, src state.TokenSource, s Settings) {
	var (
		cur      *play
		rejected bool
		pending  *Settings
		backoff  = minBackoff
		retry    *time.Timer
		retryC   <-chan time.Time
	)
	start := func() {
		pctx, cancel := context.WithCancel(context.Background())
		p := &play{cancel: cancel, done: make(chan error, 1), started: time.Now()}
		cur = p
		r.current.Store(p)
		r.hub.Update(func(st *state.Status) {
			st.Online, st.Rejected, st.NetworkDown, st.Matches = false, false, false, nil
			st.Detail = ""
		})
		token, settings := tok, s
		go func() {
			p.done <- r.player.Play(pctx, token, settings, func(rep bot.Status) { r.report(p, rep) })
		}()
	}
	stop := func() {
		if cur == nil {
			return
		}
		r.current.Store(nil)
		cur.cancel()
		t := time.NewTimer(r.drain)
		select {
		case <-cur.done:
		case <-t.C:
			r.log.Warn("the bot did not stop within the drain time; leaving it", "drain", r.drain)
		}
		t.Stop()
		cur = nil
		r.hub.Update(func(st *state.Status) { st.Online, st.Matches = false, nil })
	}
	stopRetry := func() {
		if retry != nil {
			retry.Stop()
			retry, retryC = nil, nil
		}
	}
	for {
		if cur == nil && tok != "" && !rejected && retryC == nil {
			start()
		}
		var done chan error
		if cur != nil {
			done = cur.done
		}
		select {
		case <-ctx.Done():
			stopRetry()
			stop()
			return
		case c := <-r.cmds:
			if c.token != nil {
				stop()
				stopRetry()
				tok, rejected, backoff = *c.token, false, minBackoff
				if tok == "" {
					r.hub.Update(func(st *state.Status) {
						st.Online, st.Rejected, st.NetworkDown, st.Bot = false, false, false, state.BotInfo{}
					})
				}
			}
			if c.settings != nil {
				pending = c.settings
				if cur == nil || len(r.hub.Snapshot().Matches) == 0 {
					s, pending = *pending, nil
					stop()
				}
				r.hub.Update(func(st *state.Status) { st.Engine = s.engine() })
			}
			close(c.done)
		case <-r.idle:
			if pending != nil && len(r.hub.Snapshot().Matches) == 0 {
				r.log.Info("applying new settings now that no match runs")
				s, pending = *pending, nil
				stop()
				r.hub.Update(func(st *state.Status) { st.Engine = s.engine() })
			}
		case err := <-done:
			lasted := time.Since(cur.started)
			r.current.Store(nil)
			cur.cancel()
			cur = nil
			if errors.Is(err, ErrTokenRejected) {
				rejected = true
				r.log.Error("FlipSight rejected the bot token; enter a new one on the token page")
				r.hub.Update(func(st *state.Status) {
					st.Rejected, st.Online, st.Matches = true, false, nil
					st.Detail = "FlipSight rejected the token (401)"
				})
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
			r.hub.Update(func(st *state.Status) {
				st.Online, st.Matches = false, nil
				st.NetworkDown = errors.Is(err, ErrNetwork)
				st.Detail = msg + "; retrying in " + backoff.String()
			})
			retry = time.NewTimer(backoff)
			retryC = retry.C
			backoff = min(2*backoff, maxBackoff)
		case <-retryC:
			retry, retryC = nil, nil
		}
	}
}

// report publishes a Player's report if p is still the current play.
func (r *runner) report(p *play, rep bot.Status) {
	if r.current.Load() != p {
		return
	}
	r.hub.Update(func(st *state.Status) { applyBotStatus(st, rep) })
	if len(rep.Matches) == 0 {
		select {
		case r.idle <- struct{}{}:
		default:
		}
	}
}
