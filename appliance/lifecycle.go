package appliance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/appliance/web"
	"flipbot.dev/flipbot/bot/analysis"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/internal/version"
	"flipbot.dev/flipbot/internal/wait"
)

// Exit codes as gokrazy reads them: 0 and 125 keep the service stopped, any
// other code restarts it after a fixed second, with no backoff.
const (
	// ExitStopped: stopped on purpose and done (a PC run after Ctrl-C or
	// SIGTERM).
	ExitStopped = 0
	// ExitStayStopped: a problem no restart can fix (a wrong flag baked
	// into the image); gokrazy leaves the service stopped.
	ExitStayStopped = 125
	// ExitRetry: a failure worth a restart by gokrazy; only used after
	// retrying inside the process first.
	ExitRetry = 1
	// ExitSignalled is Run's code after SIGTERM: ExitStopped on a PC,
	// ExitRetry on the device. gokrazy sends SIGTERM to stop a service
	// (its "stop" button, a reboot, an update — all mark the service
	// stopped before signalling, whatever the code) and also to restart
	// one (the web UI's "restart" button): there an exit 0 reads as
	// "exited successfully, stopping" and would leave the bot off.
	ExitSignalled = exitSignalled
)

// Defaults of Config.
const (
	DefaultPort = 8080
	// DefaultDrain bounds the wait for the running matches on SIGTERM:
	// with DefaultMoveDrain after it and a second for the rest of the
	// stop, the device is done within 90 s, inside the 100 s gokrazy
	// waits after SIGTERM before it kills a service (defaultSignalDelay in
	// its update.go; every `make update` and reboot). It does not cover a
	// whole match started just before (up to ~130 s): such a match is
	// abandoned at 80 s.
	DefaultDrain = 80 * time.Second
	// DefaultMoveDrain bounds the wait for the moves in flight once the
	// bot stops playing (after the drain, or on a new token or settings).
	DefaultMoveDrain = 8 * time.Second
	// DevicePerm is the persistent partition on gokrazy.
	DevicePerm = "/perm"
)

// Indicators shows the appliance's state on LEDs and a display.
// Implementations must return quickly from both methods.
type Indicators interface {
	// Configure applies the indicator settings (pins, display type) and
	// returns what it found.
	Configure(s settings.Settings) state.Indicators
	// Show renders a new status.
	Show(st state.Status)
}

// Config is what Run needs. Dir, Checker and Player are required.
type Config struct {
	// Dir keeps the token and the settings: $HOME on the device
	// (/perm/home/flipbot), any directory on a PC.
	Dir string
	// Perm is the file system whose health and free space are shown:
	// /perm on the device; Dir when empty.
	Perm string
	// Port of the pages (DefaultPort when 0; tests use -1 for "any").
	Port int
	// PasswordFiles hold the admin password, first existing file wins.
	PasswordFiles []string
	// EnvToken is FS_BOT_TOKEN; when set it wins over the stored token.
	EnvToken string
	// Hostname shown on the pages; os.Hostname() when empty.
	Hostname string
	// Version shown on the pages; internal/version's when empty.
	Version string
	// EgaroucidInstalled offers Egaroucid for std on the settings page.
	EgaroucidInstalled bool
	// Platform is the device or PC; DefaultPlatform() when nil.
	Platform Platform
	// Checker checks a pasted token with a real agent_poll.
	Checker TokenChecker
	// Player runs the bot.
	Player Player
	// Indicators, when not nil, get every state change.
	Indicators Indicators
	// Logger for everything (slog.Default() when nil).
	Logger *slog.Logger
	// Drain bounds the wait for the running matches to end on SIGTERM
	// (DefaultDrain when 0); a new token or new settings do not wait for
	// them. The moves in flight are then finished within DefaultMoveDrain.
	Drain time.Duration
	// AddressRefresh is how often the page addresses are re-read (10 s when 0).
	AddressRefresh time.Duration
	// CardToken, when set, is the SD card's boot partition, looked at for
	// a token file at start (on the device: store.BootPartition{}).
	CardToken store.CardTokenSource
	// Games keeps the game records shown on the games pages (nil: none).
	// Its cap follows the settings.
	Games *record.Store
	// Analysis, when set with Games, makes the engine that analyses the
	// kept games in the background while no match runs (nil: no analysis).
	Analysis AnalysisEngine
	// AnalysisOptions bound each game's analysis (zero: bot/analysis's
	// defaults per mode).
	AnalysisOptions analysis.Options
	// OnServing, when set, is called with the page URLs after each change
	// of the bound addresses (used by tests to find the server).
	OnServing func(urls []string)
}

// app is the running appliance, and the pages' web.Backend. It composes
// the parts, each the owner of one thing: the token (tokenOwner), the
// pairing code (pairing), the settings (settingsKeeper), the bot
// (runner), the background analysis (analysisSetup), the rating history
// (ratingRecorder); the status (hub) is theirs to write. Run's context
// reaches them through run, never through a field.
type app struct {
	cfg      Config
	log      *slog.Logger
	hub      *state.Hub
	token    *tokenOwner
	pairing  *pairing
	settings *settingsKeeper
	runner   *runner
	analysis analysisSetup
	// ratings keeps the bot's rating history (read at the start).
	ratings *ratingRecorder
	// pages serves the pages (a *web.Handler; tests wrap it).
	pages http.Handler
	// permLabel, when set, names /perm on the pages instead of cfg.Perm
	// (the README's screenshots are made in temp directories).
	permLabel string
	// fs is the file system of the stores and the storage check (tests
	// inject faults here before the run).
	fs store.FS
}

// analysisSetup is how the background analysis runs: gate says whether a
// match runs (set by the runner); the analyser analyses the games
// meanwhile, starting after after the start and looking for new games
// every recheck (tests shorten both; onAnalysed is their hook).
type analysisSetup struct {
	gate           *matchGate
	after, recheck time.Duration
	onAnalysed     func(id string)
}

// newApp builds the appliance without starting anything.
func newApp(cfg Config) (*app, error) {
	if cfg.Dir == "" {
		return nil, errors.New("appliance: no token directory")
	}
	if cfg.Checker == nil || cfg.Player == nil {
		return nil, errors.New("appliance: a token checker and a player are needed")
	}
	if cfg.Perm == "" {
		cfg.Perm = cfg.Dir
	}
	if cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if cfg.Port < 0 {
		cfg.Port = 0
	}
	if cfg.Platform == nil {
		cfg.Platform = DefaultPlatform()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Drain == 0 {
		cfg.Drain = DefaultDrain
	}
	if cfg.AddressRefresh == 0 {
		cfg.AddressRefresh = 10 * time.Second
	}
	if cfg.Version == "" {
		cfg.Version = version.String()
	}
	hub := state.NewHub(nil)
	r := newRunner(cfg.Player, hub, cfg.Logger, cfg.Drain, DefaultMoveDrain)
	p := &pairing{log: cfg.Logger, hub: hub, logEvery: PairingCodeLogInterval}
	a := &app{
		cfg: cfg, log: cfg.Logger, hub: hub, runner: r, pairing: p,
		token:    newTokenOwner(cfg.Logger, hub, store.NewTokenFile(cfg.Dir), cfg.Checker, r, p, cfg.CardToken, cfg.EnvToken),
		settings: &settingsKeeper{file: settings.NewFile(cfg.Dir)},
		analysis: analysisSetup{gate: newMatchGate(), after: analyseAfter, recheck: analyseRecheck},
	}
	if err := a.newPages(); err != nil {
		return nil, err
	}
	r.onMatches = a.analysis.gate.set
	return a, nil
}

// newPages makes the pages of a.cfg, with a as their backend.
func (a *app) newPages() error {
	pages, err := web.New(web.Config{
		Hub: a.hub, Backend: a, Games: a.cfg.Games, PasswordFiles: a.cfg.PasswordFiles,
		Egaroucid: a.cfg.EgaroucidInstalled, Logger: a.log,
	})
	if err != nil {
		return fmt.Errorf("appliance: %w", err)
	}
	a.pages = pages
	return nil
}

// Run runs the appliance until ctx ends (SIGTERM), then drains the bot,
// closes the pages and returns the exit code for gokrazy. Failures that
// can pass (no network, a rejected token, a read-only /perm) never end it:
// they are shown and retried inside the process.
func Run(ctx context.Context, cfg Config) int {
	a, err := newApp(cfg)
	if err != nil {
		logger := cfg.Logger
		if logger == nil {
			logger = slog.Default()
		}
		logger.Error("appliance cannot start", "err", err)
		return ExitStayStopped
	}
	return a.run(ctx)
}

// run is Run after the set-up.
func (a *app) run(ctx context.Context) int {
	a.startup()
	runCtx, stopRun := context.WithCancel(context.Background())
	defer stopRun()

	var wg sync.WaitGroup
	if ind := a.cfg.Indicators; ind != nil {
		found := ind.Configure(a.Settings())
		a.hub.Update(func(st *state.Status) { st.Indicators = found })
		wg.Go(func() { a.feedIndicators(runCtx, ind) })
	}
	pages := &pageServers{
		handler: a.pages, port: a.cfg.Port, hosts: a.cfg.Platform.PageHosts, log: a.log,
		onChange: func(urls []string) {
			a.hub.Update(func(st *state.Status) { st.Device.PageURLs = urls })
			if a.cfg.OnServing != nil {
				a.cfg.OnServing(urls)
			}
		},
	}
	pagesDone := make(chan struct{})
	go func() {
		pages.run(runCtx, a.cfg.AddressRefresh, 2*time.Second)
		close(pagesDone)
	}()
	wg.Go(func() { a.pairing.remind(runCtx) })
	if a.cfg.Games != nil && a.cfg.Analysis != nil {
		an := &analyser{games: a.cfg.Games, engine: a.cfg.Analysis, settings: a.Settings, opts: a.cfg.AnalysisOptions,
			gate: a.analysis.gate, log: a.log, after: a.analysis.after, recheck: a.analysis.recheck, failed: map[string]bool{},
			onAnalysed: a.analysis.onAnalysed}
		// Stopped by SIGTERM itself, not after the drain: an analysis
		// keeps nothing half done.
		wg.Go(func() { an.run(ctx) })
	}

	// The Pi has no RTC: TLS fails until NTP has set the clock.
	a.hub.Update(func(st *state.Status) { st.Phase = state.PhaseWaitingClock })
	a.log.Info("waiting for network/clock")
	if err := a.cfg.Platform.WaitForClock(ctx); err != nil {
		a.log.Info("stopped while waiting for the clock")
	}
	a.hub.Update(func(st *state.Status) { st.Phase = state.PhaseRunning })

	if ctx.Err() == nil {
		if retry := a.token.start(ctx); !retry.IsZero() {
			wg.Go(func() { a.token.retryCard(ctx, retry) })
		}
	}
	runnerDone := make(chan struct{})
	go func() {
		a.runner.run(ctx, a.Settings())
		close(runnerDone)
	}()

	<-ctx.Done()
	start := time.Now()
	a.log.Info("stopping: no new matches, playing the running matches to their end", "drain", a.cfg.Drain,
		"matches", len(a.hub.Snapshot().Report.Matches))
	a.token.stop()
	a.hub.Update(func(st *state.Status) { st.Phase = state.PhaseStopping })
	<-runnerDone // the runner drains the bot within cfg.Drain + DefaultMoveDrain
	stopRun()
	<-pagesDone
	wg.Wait()
	a.log.Info("stopped", "took", time.Since(start).Round(time.Millisecond))
	return ExitSignalled
}

// startup reads storage, settings, the rating history and device facts
// into the hub.
func (a *app) startup() {
	a.token.file.FS, a.settings.file.FS = a.fs, a.fs
	a.ratings = newRatingRecorder(a.cfg.Dir, a.fs, a.log)
	a.runner.onBot = a.ratings.observe
	keeper, results := newResultsKeeper(a.cfg.Dir, a.fs, a.log)
	a.runner.onResults = keeper.observe
	a.hub.Update(func(st *state.Status) { st.Results = results })
	storage := checkStorage(a.cfg.Perm, a.cfg.Dir, a.fs)
	if a.permLabel != "" {
		storage.Path = a.permLabel
		storage.Problem = strings.ReplaceAll(storage.Problem, a.cfg.Perm, a.permLabel)
	}
	if !storage.OK {
		a.log.Error("storage problem", "problem", storage.Problem)
	}
	s := a.settings.load(a.cfg.EgaroucidInstalled, a.log)
	if a.cfg.Games != nil {
		a.cfg.Games.SetCap(int64(s.GamesMB) << 20)
	}
	host := a.cfg.Hostname
	if host == "" {
		host, _ = os.Hostname()
	}
	a.hub.Update(func(st *state.Status) {
		st.Storage = storage
		st.Engine = s.EngineSettings()
		st.Device = state.Device{Model: a.cfg.Platform.Model(), Hostname: host, Version: a.cfg.Version, Started: time.Now()}
	})
	a.RefreshFacts()
}

// RefreshFacts implements web.Backend: it updates the addresses, free
// space, uptimes and the state of the game records.
func (a *app) RefreshFacts() {
	addrs := interfaceAddrs()
	up := networkUp(addrs)
	free := freeBytes(a.cfg.Perm)
	sysUp := systemUptime()
	var games state.GameStore
	if a.cfg.Games != nil {
		games = state.GameStoreOf(a.cfg.Games.Status())
	}
	a.hub.Update(func(st *state.Status) {
		st.Games = games
		st.Device.Addresses = addrs
		st.Device.NetworkUp = up
		if st.Storage.OK {
			st.Storage.FreeBytes = free
		}
		st.Device.SysUptimeS = int64(sysUp / time.Second)
	})
}

// feedIndicators shows every state change on the indicators until ctx ends.
func (a *app) feedIndicators(ctx context.Context, ind Indicators) {
	c, cancel := a.hub.Subscribe()
	defer cancel()
	ind.Show(a.hub.Snapshot())
	for {
		select {
		case <-ctx.Done():
			ind.Show(a.hub.Snapshot())
			return
		case <-c:
			ind.Show(a.hub.Snapshot())
		}
	}
}

// NotifyStop returns a context cancelled by the first SIGTERM or SIGINT
// (gokrazy sends SIGTERM on update and reboot); a second signal calls
// exit(ExitRetry) at once, for an owner who does not want to wait for the
// drain. stop releases the signals.
func NotifyStop(parent context.Context, exit func(code int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	release := wait.OnStopSignals(func(os.Signal) { cancel() }, func(os.Signal) { exit(ExitRetry) })
	return ctx, func() {
		release()
		cancel()
	}
}
