package bot

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/logagg"
	"flipbot.dev/flipbot/internal/text"
)

// DefaultDrain is how long the running matches are played on after a stop
// request (Options.Drain): a FlipSight bot match is two legs played at
// once on a 60 s clock per colour, at most 120 s of clocks from its start,
// and 30 s more covers the first move's grace, the server's turnarounds and
// the polls.
const DefaultDrain = 150 * time.Second

// DefaultMoveDrain bounds the wait for the moves in flight once the bot
// stops playing (Options.MoveDrain).
const DefaultMoveDrain = 15 * time.Second

// ServerWarnInterval is how often a kind of warning that the server can
// cause at will is logged at most (a running match over the limit, a
// malformed object or stream line, a failed poll, accept or reject, a
// match rejected for its mode): the first at once, the rest of the
// interval as one line with their count.
// 20,000 running-match events while the bot was at its limit wrote 59,924
// lines before (8.3 MB in 25 s), and gokrazy keeps a service's last 100.
const ServerWarnInterval = time.Minute

// Bot plays on FlipSight. Create it with New, run it with Run (once), read
// its state with Status from any goroutine.
type Bot struct {
	opts Options
	c    *flipsight.Client
	log  *slog.Logger
	// serverWarn logs the warnings the server can cause, in aggregate.
	serverWarn *logagg.Log
	clock      clock.Clock
	t          Timing
	env        flipsight.Environment
	// sessions holds the engines of the matches not ended, by match
	// (loop); closing counts their closes in the background.
	sessions map[int64]*matchSession
	closing  sync.WaitGroup
	// over measures what a move costs besides the engine's think, for
	// the clock plan (move tasks).
	over *OverheadMeter

	// Messages to the loop.
	streamMsgs chan streamMsg
	pollDone   chan pollResult
	acceptDone chan acceptResult
	probeDone  chan probeResult
	taskMsgs   chan taskMsg
	refreshes  chan refreshReq
	// rejects holds a token for each agent_reject in flight.
	rejects chan struct{}
	// serverBack tells the stream reader that a poll got through while the
	// stream was down (the loop sends, never blocking; runStream).
	serverBack chan struct{}

	statusMu sync.Mutex
	status   Status

	tasks sync.WaitGroup
	// ponders counts the engines' ponders running; pondering is their
	// parent context, cancelled when the bot stops.
	ponders       sync.WaitGroup
	pondering     context.Context
	stopPondering context.CancelFunc
	// recording counts the Records.Add calls in flight; recordMu keeps
	// them one at a time.
	recording sync.WaitGroup
	recordMu  sync.Mutex
	// searchMu guards searches: how the bot's moves were found, by leg and
	// history index, noted by the move tasks for the records.
	searchMu sync.Mutex
	searches map[legKey]map[int]record.Search
	// stopNow is closed by Stop: the drain ends at once.
	stopNow  chan struct{}
	stopOnce sync.Once
	// abort ends the move tasks' network calls and retries: when the moves
	// in flight take longer than MoveDrain, or the token was rejected.
	abort     context.Context
	abortMove context.CancelFunc

	// Loop-owned state below.
	me        int64
	botInfo   BotInfo
	names     map[int64]string
	matches   map[int64]*match
	rejected  *recent[int64]  // pending matches refused: not considered again
	ended     *recent[endKey] // matches (human: rounds) seen ending: a late, older view never revives them
	overLimit *recent[int64]  // running matches not taken for lack of a slot (counted once each)
	// engineFailing says why the engine is taken as broken (empty: it is
	// not): it failed on failingAfter own moves in a row; engineFaults
	// counts them; probing is a probe in flight, probedAt when the last
	// began.
	engineFailing string
	engineFaults  int
	probing       bool
	probedAt      time.Time
	results       []Result
	streamUp      bool
	draining      bool // a stop was requested: nothing new is accepted
	quitting      bool // the drain is over: no new moves either
	onceDone      bool
	lastErr       string
	networkDown   bool
	polling       bool
	pollAgain     bool
	lastPoll      time.Time
	waiting       []refreshReq
	pollWaiting   []refreshReq
	fatal         error
	stopStream    context.CancelFunc
	pollTimer     clock.Timer
	pollTimerSet  bool
	pollTimerAt   time.Time
	serverOffset  int64 // server_now_ms − local ms, from the last message that had it
	haveOffset    bool
	pollFailures  int       // consecutive failed polls
	pollHold      time.Time // no poll before this (backoff, Retry-After)
	misdirected   int       // poll answers in a row that no bot API gives
	introduced    bool      // the bot's name and rating were logged
}

// New checks opts and returns a Bot.
func New(opts Options) (*Bot, error) {
	if opts.Client == nil {
		return nil, errors.New("bot: no client")
	}
	if opts.Engine.Provider == nil {
		return nil, errors.New("bot: no engine")
	}
	if opts.MaxMatches <= 0 {
		opts.MaxMatches = 2
	}
	if opts.Results <= 0 {
		opts.Results = 20
	}
	if opts.Drain == 0 {
		opts.Drain = DefaultDrain
	}
	if opts.MoveDrain <= 0 {
		opts.MoveDrain = DefaultMoveDrain
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = clock.System()
	}
	if opts.OS == "" {
		opts.OS = runtime.GOOS
	}
	b := &Bot{
		opts:  opts,
		c:     opts.Client,
		log:   opts.Logger,
		clock: opts.Clock,
		t:     opts.Timing.withDefaults(),
		env: flipsight.Environment{
			CPU:      text.Clip(opts.CPU, flipsight.MaxEnvironmentLen),
			OS:       text.Clip(opts.OS, flipsight.MaxEnvironmentLen),
			Engine:   text.Clip(opts.Engine.Name, flipsight.MaxEnvironmentLen),
			Practice: opts.Engine.Practice,
		},
		sessions:   map[int64]*matchSession{},
		over:       NewOverheadMeter(),
		streamMsgs: make(chan streamMsg, 64),
		pollDone:   make(chan pollResult, 1),
		acceptDone: make(chan acceptResult, 8),
		probeDone:  make(chan probeResult, 1),
		taskMsgs:   make(chan taskMsg, 64),
		refreshes:  make(chan refreshReq, 8),
		serverBack: make(chan struct{}, 1),
		names:      map[int64]string{},
		matches:    map[int64]*match{},
		rejected:   newRecent[int64](maxRecentIDs),
		ended:      newRecent[endKey](maxRecentIDs),
		overLimit:  newRecent[int64](maxRecentIDs),
		serverWarn: logagg.New(opts.Logger, ServerWarnInterval, nil),
		rejects:    make(chan struct{}, maxRejects),
		searches:   map[legKey]map[int]record.Search{},
		stopNow:    make(chan struct{}),
	}
	b.status = Status{State: StateConnecting, Updated: b.clock.Now()}
	b.abort, b.abortMove = context.WithCancel(context.Background())
	b.pondering, b.stopPondering = context.WithCancel(context.Background())
	return b, nil
}

// Status returns a snapshot of the bot's state. Safe from any goroutine.
func (b *Bot) Status() Status {
	b.statusMu.Lock()
	defer b.statusMu.Unlock()
	return b.status.clone()
}

// Stop ends the drain at once: the bot finishes the moves in flight (at
// most Options.MoveDrain), abandons the matches still running and Run
// returns. Called before Run's context is cancelled, it stops the bot the
// same way. Safe from any goroutine, any number of times.
func (b *Bot) Stop() { b.stopOnce.Do(func() { close(b.stopNow) }) }

// Run plays until ctx is cancelled, then accepts nothing new and plays the
// running matches to their end (at most Options.Drain, or until Stop),
// finishes the moves in flight (at most Options.MoveDrain), waits for the
// records of the matches that ended, closes the engines and returns nil. It also returns nil when the OnceMatch match has ended, and
// an error for which flipsight.IsAuth is true when the token is rejected.
// Other failures (network, 5xx, 429) are retried, never returned. Run must
// be called once.
func (b *Bot) Run(ctx context.Context) error {
	b.log.Info("bot starting", "api", b.c.APIURL(), "engine", b.env.Engine,
		"max_matches", b.opts.MaxMatches, "stream", !b.opts.NoStream, "once_match", b.opts.OnceMatch)
	if w, ok := b.opts.Engine.Provider.(engines.Prewarmer); ok {
		w.Prewarm()
	}
	streamCtx, stopStream := context.WithCancel(context.Background())
	b.stopStream = stopStream
	var streamWG sync.WaitGroup
	if !b.opts.NoStream {
		streamWG.Add(1)
		go func() {
			defer streamWG.Done()
			b.runStream(streamCtx)
		}()
		b.setState(StateConnecting)
	} else {
		b.setState(StatePolling)
	}
	b.pollTimer = b.clock.NewTimer(time.Hour)
	b.pollTimer.Stop()
	b.startPoll()

	err := b.loop(ctx)

	b.stopPondering()
	b.ponders.Wait()
	b.abortMove()
	stopStream()
	streamWG.Wait()
	b.closeSessions()
	b.recording.Wait()
	if b.fatal != nil {
		b.setState(StateTokenRejected)
	} else {
		b.setState(StateStopped)
	}
	b.log.Info("bot stopped", "reason", stopReason(err))
	return err
}

func stopReason(err error) string {
	if err == nil {
		return "done"
	}
	return err.Error()
}

// loop is the owner of the state. It returns when the bot must stop and
// every move task has ended.
func (b *Bot) loop(ctx context.Context) error {
	tasksDone := make(chan struct{})
	var tasksDoneArmed bool
	ctxDone, stopNow := ctx.Done(), b.stopNow
	var drainOver, movesOver <-chan time.Time
	statusLine := b.clock.NewTimer(time.Minute)
	defer statusLine.Stop()
	for {
		if b.draining && !b.quitting && len(b.matches) == 0 {
			if drainOver != nil {
				b.log.Info("the running matches have ended; stopping")
			}
			b.quitting = true
		}
		if b.stopping() && !tasksDoneArmed {
			tasksDoneArmed = true
			b.stopPondering()
			b.stopStream()
			go func() { b.tasks.Wait(); close(tasksDone) }()
			t := b.clock.NewTimer(b.opts.MoveDrain)
			defer t.Stop()
			movesOver = t.C()
		}
		select {
		case <-ctxDone:
			ctxDone = nil
			b.draining = true
			b.setState(StateStopping)
			if n := len(b.matches); n > 0 && b.opts.Drain > 0 && !b.quitting {
				args := []any{"matches", n, "drain", b.opts.Drain}
				if b.opts.QuitHint != "" {
					args = append(args, "quit_now", b.opts.QuitHint)
				}
				b.log.Info("stop requested: accepting nothing new, playing the running matches to their end", args...)
				t := b.clock.NewTimer(b.opts.Drain)
				defer t.Stop()
				drainOver = t.C()
			} else {
				b.log.Info("stop requested: accepting nothing new, finishing the moves in flight", "matches", n)
				b.quitting = true
			}
		case <-stopNow:
			stopNow = nil
			if !b.quitting {
				b.log.Info("stop now: finishing the moves in flight, abandoning the running matches", "matches", len(b.matches))
			}
			b.draining, b.quitting = true, true
			b.setState(StateStopping)
		case <-drainOver:
			drainOver = nil
			if !b.quitting {
				b.log.Warn("the running matches did not end within the drain; abandoning them", "matches", len(b.matches), "drain", b.opts.Drain)
				b.quitting = true
			}
		case <-movesOver:
			movesOver = nil
			b.log.Warn("moves in flight did not finish in time; abandoning them", "move_drain", b.opts.MoveDrain)
			b.abortMove()
			for _, m := range b.matches {
				m.cancelTasks()
			}
		case m := <-b.streamMsgs:
			b.onStream(m)
		case r := <-b.pollDone:
			b.onPoll(r)
		case r := <-b.acceptDone:
			b.onAccept(r)
		case r := <-b.probeDone:
			b.onProbe(r)
		case m := <-b.taskMsgs:
			b.onTask(m)
		case r := <-b.refreshes:
			b.pollWaiting = append(b.pollWaiting, r)
			b.startPoll()
		case <-statusLine.C():
			statusLine.Reset(time.Minute)
			b.logStatusLine()
			b.maybeProbe()
		case <-b.pollTimer.C():
			b.pollTimerSet = false
			b.startPoll()
		case <-tasksDone:
			// Answer pending refreshes so no task waits (none should remain).
			for _, r := range append(b.waiting, b.pollWaiting...) {
				r.reply <- false
			}
			switch {
			case b.fatal != nil:
				return b.fatal
			default:
				return nil
			}
		}
	}
}

// stopping reports whether the bot is on its way out: no new accepts or
// moves (loop). While it drains (b.draining, not yet b.quitting) it accepts
// nothing new but plays on.
func (b *Bot) stopping() bool { return b.quitting || b.fatal != nil || b.onceDone }

// logStatusLine logs a summary once a minute (loop).
func (b *Bot) logStatusLine() {
	var w, l, d int
	for _, r := range b.results {
		switch r.Outcome {
		case OutcomeWin:
			w++
		case OutcomeLoss:
			l++
		case OutcomeDraw:
			d++
		}
	}
	b.statusMu.Lock()
	state := b.status.State
	b.statusMu.Unlock()
	b.log.Info("status", "state", state, "bot", b.botInfo.Name, "rating", b.botInfo.Rating,
		"matches", len(b.matches), "recent_wins", w, "recent_losses", l, "recent_draws", d)
}

// fail records a fatal error (token rejected) and stops the bot.
func (b *Bot) fail(err error) {
	if b.fatal == nil {
		b.fatal = err
		b.log.Error("FlipSight rejected the bot token; stopping (check FS_BOT_TOKEN)", "err", err)
		b.setState(StateTokenRejected)
		b.abortMove()
		for _, m := range b.matches {
			m.cancelTasks()
		}
	}
}

// noteErr records the last failure for the status.
func (b *Bot) noteErr(err error) {
	if err == nil {
		if b.lastErr != "" {
			b.lastErr, b.networkDown = "", false
			b.publish()
		}
		return
	}
	msg := err.Error()
	if msg != b.lastErr {
		b.lastErr = msg
		b.networkDown = flipsight.IsNetwork(err)
		b.publish()
	}
}

func (b *Bot) setState(s string) {
	b.statusMu.Lock()
	b.status.State = s
	b.statusMu.Unlock()
	b.publish()
}

// publish rebuilds the status snapshot and hands it to OnStatus.
func (b *Bot) publish() {
	b.statusMu.Lock()
	st := b.buildStatus(b.status.State)
	b.status = st
	b.statusMu.Unlock()
	if b.opts.OnStatus != nil {
		b.opts.OnStatus(st.clone())
	}
}
