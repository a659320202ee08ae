package bot

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/logagg"
	"flipbot.dev/flipbot/internal/text"
)

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
	clock      Clock
	t          Timing
	env        flipsight.Environment
	eng        *engineSet
	// over measures what a move costs besides the engine's think, for
	// the clock plan (move tasks).
	over *OverheadMeter

	// Messages to the loop.
	streamMsgs chan streamMsg
	pollDone   chan pollResult
	acceptDone chan acceptResult
	taskMsgs   chan taskMsg
	refreshes  chan refreshReq
	// rejects holds a token for each agent_reject in flight.
	rejects chan struct{}

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
	// abort ends the move tasks' network calls and retries: when the drain
	// takes too long, or the token was rejected.
	abort     context.Context
	abortMove context.CancelFunc

	// Loop-owned state below.
	me           int64
	botInfo      BotInfo
	names        map[int64]string
	matches      map[int64]*match
	rejected     *recent[int64]  // pending matches refused: not considered again
	ended        *recent[endKey] // matches (human: rounds) seen ending: a late, older view never revives them
	overLimit    *recent[int64]  // running matches not taken for lack of a slot (counted once each)
	results      []Result
	streamUp     bool
	draining     bool
	onceDone     bool
	lastErr      string
	networkDown  bool
	polling      bool
	pollAgain    bool
	lastPoll     time.Time
	waiting      []refreshReq
	pollWaiting  []refreshReq
	fatal        error
	stopStream   context.CancelFunc
	pollTimer    *time.Timer
	pollTimerSet bool
	pollTimerAt  time.Time
	serverOffset int64 // server_now_ms − local ms, from the last message that had it
	haveOffset   bool
	pollFailures int       // consecutive failed polls
	pollHold     time.Time // no poll before this (backoff, Retry-After)
}

// New checks opts and returns a Bot.
func New(opts Options) (*Bot, error) {
	if opts.Client == nil {
		return nil, errors.New("bot: no client")
	}
	if opts.Engine.New == nil && opts.Engine.NewMatch == nil {
		return nil, errors.New("bot: no engine")
	}
	if opts.MaxMatches <= 0 {
		opts.MaxMatches = 2
	}
	if opts.Results <= 0 {
		opts.Results = 20
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 15 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Clock == nil {
		opts.Clock = systemClock{}
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
		eng:        newEngineSet(opts.Engine, opts.Logger, 2*opts.MaxMatches),
		over:       NewOverheadMeter(),
		streamMsgs: make(chan streamMsg, 64),
		pollDone:   make(chan pollResult, 1),
		acceptDone: make(chan acceptResult, 8),
		taskMsgs:   make(chan taskMsg, 64),
		refreshes:  make(chan refreshReq, 8),
		names:      map[int64]string{},
		matches:    map[int64]*match{},
		rejected:   newRecent[int64](maxRecentIDs),
		ended:      newRecent[endKey](maxRecentIDs),
		overLimit:  newRecent[int64](maxRecentIDs),
		serverWarn: logagg.New(opts.Logger, ServerWarnInterval, nil),
		rejects:    make(chan struct{}, maxRejects),
		searches:   map[legKey]map[int]record.Search{},
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

// Run plays until ctx is cancelled, then accepts nothing new, finishes the
// moves in flight (at most Options.DrainTimeout), closes the engines and
// returns nil. It also returns nil when the OnceMatch match has ended, and
// an error for which flipsight.IsAuth is true when the token is rejected.
// Other failures (network, 5xx, 429) are retried, never returned. Run must
// be called once.
func (b *Bot) Run(ctx context.Context) error {
	b.log.Info("bot starting", "api", b.c.APIURL(), "engine", b.env.Engine,
		"max_matches", b.opts.MaxMatches, "stream", !b.opts.NoStream, "once_match", b.opts.OnceMatch)
	b.eng.prewarm()
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
	b.pollTimer = time.NewTimer(time.Hour)
	b.pollTimer.Stop()
	b.startPoll()

	err := b.loop(ctx)

	b.stopPondering()
	b.ponders.Wait()
	b.abortMove()
	stopStream()
	streamWG.Wait()
	b.eng.closeAll()
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
	ctxDone := ctx.Done()
	var drainTimeout <-chan time.Time
	statusLine := time.NewTicker(time.Minute)
	defer statusLine.Stop()
	for {
		if b.stopping() && !tasksDoneArmed {
			tasksDoneArmed = true
			b.stopPondering()
			b.stopStream()
			go func() { b.tasks.Wait(); close(tasksDone) }()
		}
		select {
		case <-ctxDone:
			ctxDone = nil
			if !b.draining {
				b.draining = true
				b.log.Info("stop requested: accepting nothing new, finishing moves in flight")
				b.setState(StateStopping)
				t := time.NewTimer(b.opts.DrainTimeout)
				defer t.Stop()
				drainTimeout = t.C
			}
		case <-drainTimeout:
			drainTimeout = nil
			b.log.Warn("moves in flight did not finish in time; abandoning them", "drain_timeout", b.opts.DrainTimeout)
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
		case m := <-b.taskMsgs:
			b.onTask(m)
		case r := <-b.refreshes:
			b.pollWaiting = append(b.pollWaiting, r)
			b.startPoll()
		case <-statusLine.C:
			b.logStatusLine()
		case <-b.pollTimer.C:
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
// moves (loop).
func (b *Bot) stopping() bool { return b.draining || b.fatal != nil || b.onceDone }

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
