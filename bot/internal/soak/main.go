// Command soak plays a Bot against the arena for a long time with faults
// injected, and prints what went wrong and how the process's resources
// evolved. It is a benchmark command, not a test (an hour by default):
//
//	nice -n 19 go run ./bot/internal/soak -duration 1h -out /tmp/soak
//
// The arena runs in this process behind a fault-injecting HTTP front on
// loopback; the bot plays with an external JSON-line engine (flipengine
// engine, built into -out unless -engine-bin is given), two matches at a
// time, the modes in turn, against a built-in house bot that keeps
// challenging it. On a schedule one fault fires: the stream is cut, the
// next API answers are 503, a move's answer is lost after the server
// applied it, an engine process is killed (crash) or stopped (hang), or the
// HTTP server goes away for a few seconds and comes back (restart; the
// arena's state survives, as a real server's database does).
//
// It reports: illegal moves (illegal_move answers to the bot), legs the bot
// lost on time, matches that ended other than by discs, matches lost on
// discs, RSS and heap samples (first and last quarter of the run), and the
// goroutines, file descriptors and engine processes after the bot stopped
// against their values before it started. The exit status is 1 when any of
// the zero-figures is not zero or a resource did not come back.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

const token = "fsbm_SOAKTESTTOKEN"

func main() {
	duration := flag.Duration("duration", time.Hour, "how long to play")
	faultEvery := flag.Duration("fault-every", 20*time.Second, "mean interval between injected faults")
	clock := flag.Duration("clock", 60*time.Second, "clock per leg and colour")
	maxThink := flag.Duration("max-think", time.Second, "the bot's --max-think-seconds")
	level := flag.Int("level", 1, "the house bot's level (0 random, 1 greedy, 2+ search depth)")
	out := flag.String("out", "", "directory for the engine binary, the bot's log and the samples (default: a temporary directory)")
	engineBin := flag.String("engine-bin", "", "a flipengine binary (default: built with go build)")
	sampleEvery := flag.Duration("sample-every", 30*time.Second, "resource sampling interval")
	modeList := flag.String("modes", "", "comma-separated modes to play in turn (default: all five)")
	cpuProfile := flag.Bool("cpuprofile", false, "write a CPU profile of the whole run (bot and arena) to -out/cpu.pprof")
	heapEvery := flag.Duration("heap-every", 0, "write a heap profile (after a GC) to -out/heap/SECONDS.pprof at this interval and at the end (0: none); compare two with go tool pprof -base")
	flag.Parse()
	modes, err := parseModes(*modeList)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	if (*cpuProfile || *heapEvery > 0) && *out == "" {
		fmt.Fprintln(os.Stderr, "soak: -cpuprofile and -heap-every need -out")
		os.Exit(2)
	}
	stop := func() {}
	if *cpuProfile {
		if stop, err = startProfile(filepath.Join(*out, "cpu.pprof")); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
			os.Exit(1)
		}
	}
	if *heapEvery > 0 {
		// Sample every 4 KiB allocated on average instead of every 512 KiB, so
		// that a growth of a few hundred KiB shows in the profiles.
		runtime.MemProfileRate = 4096
	}
	err = run(*duration, *faultEvery, *clock, *maxThink, *level, *out, *engineBin, *sampleEvery, *heapEvery, modes)
	stop()
	if errors.Is(err, errFigures) {
		os.Exit(1) // the report says which
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// errFigures reports that a zero-figure was not zero or a resource did not
// come back (the report shows which).
var errFigures = errors.New("a figure failed")

// startProfile starts the CPU profile into path and returns its stop.
func startProfile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// parseModes reads the -modes flag: empty means all five.
func parseModes(list string) ([]othello.Mode, error) {
	if list == "" {
		return othello.AllModes(), nil
	}
	var modes []othello.Mode
	for _, name := range strings.Split(list, ",") {
		m, err := othello.ParseMode(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("-modes: %w", err)
		}
		modes = append(modes, m)
	}
	return modes, nil
}

// counters are the soak's observations; all fields are updated atomically.
type counters struct {
	illegal, moveErrors, moves                            atomic.Int64
	cuts, f503, lost, crashes, hangs, restarts            atomic.Int64
	matches, byDiscs, notByDiscs, myTimeouts, oppTimeouts atomic.Int64
	won, defeats, drawn                                   atomic.Int64
	fallbacks, engineKills                                atomic.Int64
	byMode                                                sync.Map // mode → *atomic.Int64

	// arenaMu guards arenaMove: how long the arena took to handle each of
	// the bot's move requests (in this process: its share of the CPU), as a
	// histogram of fixed size, so that the harness's own memory stays flat.
	arenaMu   sync.Mutex
	arenaMove durationHist
}

// noteArenaMove counts one move request's handling time.
func (c *counters) noteArenaMove(d time.Duration) {
	c.arenaMu.Lock()
	defer c.arenaMu.Unlock()
	c.arenaMove.add(d)
}

// arenaMovePercentiles returns the median, the 99th percentile and the
// largest of the arena's move handling times.
func (c *counters) arenaMovePercentiles() (p50, p99, top time.Duration, n int) {
	c.arenaMu.Lock()
	defer c.arenaMu.Unlock()
	h := &c.arenaMove
	return h.quantile(0.5), h.quantile(0.99), h.max, int(h.n)
}

// durationHist counts durations in buckets 2 % wide from 1 µs up (the
// last bucket holds everything from about 5 h): a quantile is read to
// within 2 %, in constant memory.
type durationHist struct {
	counts [histBuckets]int64
	n      int64
	max    time.Duration
}

const (
	histBuckets = 1200
	histStep    = 1.02
)

func (h *durationHist) add(d time.Duration) {
	h.n++
	h.max = max(h.max, d)
	i := 0
	if us := float64(d) / float64(time.Microsecond); us > 1 {
		i = min(histBuckets-1, int(math.Log(us)/math.Log(histStep))+1)
	}
	h.counts[i]++
}

// quantile returns the upper bound of the bucket that holds the q-quantile
// (at most the largest duration seen).
func (h *durationHist) quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	rank := int64(float64(h.n-1)*q) + 1
	for i, c := range h.counts {
		if rank -= c; rank <= 0 && i < histBuckets-1 {
			return min(h.max, time.Duration(math.Pow(histStep, float64(i))*float64(time.Microsecond)))
		}
	}
	return h.max
}

// lineCounter passes the bot's log on to w and counts the fallback moves
// and the engines the bot killed for not answering in time.
type lineCounter struct {
	w io.Writer
	c *counters
}

func (l *lineCounter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`msg="playing a fallback move"`)) {
		l.c.fallbacks.Add(1)
	}
	if bytes.Contains(p, []byte(`msg="engine gave no answer in time`)) {
		l.c.engineKills.Add(1)
	}
	return l.w.Write(p)
}

// front is the fault-injecting HTTP server in front of the arena.
type front struct {
	h    http.Handler
	c    *counters
	log  *slog.Logger
	addr string

	mu       sync.Mutex
	srv      *http.Server
	streams  map[*http.Request]context.CancelFunc
	fail503  int
	loseNext int
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mine := r.Header.Get("Authorization") == "Bearer "+token
	if !mine {
		f.h.ServeHTTP(w, r)
		return
	}
	if r.URL.Path == flipsight.StreamPath {
		ctx, cancel := context.WithCancel(r.Context())
		f.mu.Lock()
		f.streams[r] = cancel
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			delete(f.streams, r)
			f.mu.Unlock()
			cancel()
		}()
		f.h.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != arena.APIPath {
		f.h.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, arena.MaxBodyBytes+1))
	if err != nil {
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		Action string `json:"action"`
	}
	_ = json.Unmarshal(body, &req)
	f.mu.Lock()
	fail := f.fail503 > 0
	if fail {
		f.fail503--
	}
	lose := !fail && req.Action == flipsight.ActionMove && f.loseNext > 0
	if lose {
		f.loseNext--
	}
	f.mu.Unlock()
	if fail {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(flipsight.ErrorResponse{Error: string(flipsight.CodeStorageUnavailable)})
		return
	}
	if req.Action != flipsight.ActionMove {
		f.h.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	began := time.Now()
	f.h.ServeHTTP(rec, r)
	f.c.noteArenaMove(time.Since(began))
	f.c.moves.Add(1)
	if rec.Code != http.StatusOK {
		f.c.moveErrors.Add(1)
		var er flipsight.ErrorResponse
		_ = json.Unmarshal(rec.Body.Bytes(), &er)
		if er.Error == string(flipsight.CodeIllegalMove) {
			f.c.illegal.Add(1)
		}
		f.log.Warn("move refused", "status", rec.Code, "error", er.Error)
	}
	if lose {
		abort(w)
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func abort(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// listen starts (or restarts) the HTTP server on f.addr.
func (f *front) listen() error {
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", f.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("listen %s: %w", f.addr, err)
	}
	f.addr = ln.Addr().String()
	srv := &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	f.mu.Lock()
	f.srv = srv
	f.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return nil
}

// stop closes the HTTP server and every connection.
func (f *front) stop() {
	f.mu.Lock()
	srv := f.srv
	f.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (f *front) cutStreams() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.streams {
		c()
	}
	return len(f.streams)
}

func run(duration, faultEvery, clock, maxThink time.Duration, level int, out, engineBin string, sampleEvery, heapEvery time.Duration, modes []othello.Mode) error {
	if out == "" {
		d, err := os.MkdirTemp("", "flipbot-soak-")
		if err != nil {
			return err
		}
		out = d
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if engineBin == "" {
		engineBin = filepath.Join(out, "flipengine")
		cmd := exec.Command("go", "build", "-o", engineBin, "flipbot.dev/flipbot/cmd/flipengine")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("build flipengine: %w", err)
		}
	}
	logf, err := os.Create(filepath.Join(out, "bot.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	c := &counters{}
	log := slog.New(slog.NewTextHandler(&lineCounter{w: logf, c: c}, &slog.HandlerOptions{Level: slog.LevelInfo}))
	samples, err := os.Create(filepath.Join(out, "samples.tsv"))
	if err != nil {
		return err
	}
	defer samples.Close()
	fmt.Fprintln(samples, "seconds\trss_kib\theap_kib\tgoroutines\tfds\tengines\tmatches")

	a, err := arena.New(arena.Config{
		Bots: []arena.BotConfig{
			{Name: "soakbot", Token: token, Modes: othello.AllModes(), MaxMatches: 2, NoAutoMatch: true},
			{Name: "house", Builtin: true, Level: level, Modes: othello.AllModes(), MaxMatches: 8, NoAutoMatch: true},
		},
		ClockPerLeg:   clock,
		SearchThreads: 1,
		Logger:        log.With("side", "arena"),
	})
	if err != nil {
		return err
	}
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	go a.Run(actx, 50*time.Millisecond)
	defer a.Close()

	fr := &front{h: a.Handler(), c: c, log: log.With("side", "front"), addr: "127.0.0.1:0", streams: map[*http.Request]context.CancelFunc{}}
	if err := fr.listen(); err != nil {
		return err
	}
	defer fr.stop()

	runtime.GC()
	base := sample()

	tok, err := flipsight.NewToken(token)
	if err != nil {
		return err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second, ResponseHeaderTimeout: 30 * time.Second}
	cl, err := flipsight.NewClient(flipsight.Config{APIURL: "http://" + fr.addr + arena.APIPath, Token: tok,
		HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		return err
	}
	engLog := log.With("side", "engine")
	b, err := bot.New(bot.Options{
		Client: cl, CPU: "soak", MaxThink: maxThink, MaxMatches: 2, Logger: log.With("side", "bot"),
		Engine: bot.EngineFactory{Name: "flipengine", Scope: bot.PerLeg, New: func() (engines.Engine, error) {
			return jsonline.New(jsonline.Options{Command: engineBin + " engine -threads 1 -hash 16", Logger: engLog})
		}},
	})
	if err != nil {
		return err
	}
	bctx, bcancel := context.WithCancel(context.Background())
	defer bcancel()
	runDone := make(chan error, 1)
	go func() { runDone <- b.Run(bctx) }()

	start := time.Now()
	end := start.Add(duration)
	var wg sync.WaitGroup
	stopAll := make(chan struct{})
	wg.Add(2)
	go func() { defer wg.Done(); challenger(a, c, modes, stopAll, log) }()
	go func() { defer wg.Done(); injector(fr, c, faultEvery, stopAll, log) }()

	var rss []int64
	var heap []int64
	tick := time.NewTicker(sampleEvery)
	progress := time.NewTicker(5 * time.Minute)
	var heapTick <-chan time.Time
	if heapEvery > 0 {
		t := time.NewTicker(heapEvery)
		defer t.Stop()
		heapTick = t.C
	}
	for now := time.Now(); now.Before(end); now = time.Now() {
		select {
		case <-tick.C:
			runtime.GC()
			s := sample()
			rss = append(rss, s.rssKiB)
			heap = append(heap, s.heapKiB)
			fmt.Fprintf(samples, "%.0f\t%d\t%d\t%d\t%d\t%d\t%d\n", time.Since(start).Seconds(), s.rssKiB, s.heapKiB,
				s.goroutines, s.fds, s.engines, c.matches.Load())
		case <-heapTick:
			if err := writeHeapProfile(out, time.Since(start)); err != nil {
				return err
			}
		case <-progress.C:
			fmt.Printf("%5.0f s: %d matches, %d moves, %d illegal, %d faults\n", time.Since(start).Seconds(),
				c.matches.Load(), c.moves.Load(), c.illegal.Load(),
				c.cuts.Load()+c.f503.Load()+c.lost.Load()+c.crashes.Load()+c.hangs.Load()+c.restarts.Load())
		case err := <-runDone:
			return fmt.Errorf("the bot stopped early: %v", err)
		case <-time.After(time.Until(end)):
		}
	}
	tick.Stop()
	progress.Stop()
	if heapEvery > 0 {
		// The last profile while the bot is still up with its matches in play.
		if err := writeHeapProfile(out, time.Since(start)); err != nil {
			return err
		}
	}
	close(stopAll)
	wg.Wait()
	bcancel()
	var runErr error
	select {
	case runErr = <-runDone:
	case <-time.After(30 * time.Second):
		return errors.New("the bot did not stop within 30 s")
	}
	tr.CloseIdleConnections()
	// Give the server side of the closed connections time to go.
	var after snapshot
	for range 100 {
		runtime.GC()
		after = sample()
		if after.goroutines <= base.goroutines && after.fds <= base.fds && after.engines == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	wall := time.Since(start)
	if !report(c, base, after, rss, heap, wall, runErr) {
		return errFigures
	}
	return nil
}

// challenger keeps two matches of the bot going, the modes in turn.
func challenger(a *arena.Server, c *counters, modes []othello.Mode, stop <-chan struct{}, log *slog.Logger) {
	next := 0
	live := map[int64]othello.Mode{}
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			// Let the matches in play end, up to their clocks.
			deadline := time.Now().Add(5 * time.Minute)
			for len(live) > 0 && time.Now().Before(deadline) {
				settle(a, c, live, log)
				time.Sleep(500 * time.Millisecond)
			}
			return
		case <-t.C:
		}
		settle(a, c, live, log)
		for len(live) < 2 {
			m := modes[next%len(modes)]
			id, err := a.Challenge("house", "soakbot", m)
			if err != nil {
				break
			}
			next++
			live[id] = m
		}
	}
}

// settle records the matches of live that have ended.
func settle(a *arena.Server, c *counters, live map[int64]othello.Mode, log *slog.Logger) {
	for id, mode := range live {
		r, ok := a.Result(id)
		if ok && !r.Ended {
			continue
		}
		delete(live, id)
		c.matches.Add(1)
		v, _ := c.byMode.LoadOrStore(mode, new(atomic.Int64))
		v.(*atomic.Int64).Add(1)
		if !ok {
			c.notByDiscs.Add(1)
			log.Error("match vanished", "match", id)
			continue
		}
		m, _ := a.MatchJSON(id)
		const me = 1 // the house challenges: the bot is bot_b, participant 1
		if r.Status == flipsight.MatchFinished && r.FinishReason == flipsight.FinishDiscs {
			c.byDiscs.Add(1)
		} else {
			c.notByDiscs.Add(1)
			log.Error("match did not end by discs", "match", id, "mode", mode, "status", r.Status, "reason", r.FinishReason)
		}
		switch r.Winner {
		case -1:
			c.drawn.Add(1)
		case me:
			c.won.Add(1)
		default:
			c.defeats.Add(1)
			log.Warn("match lost", "match", id, "mode", mode, "totals", r.Totals, "reason", r.FinishReason)
		}
		if m.State == nil {
			continue
		}
		for i, l := range m.State.Legs {
			if l.Status != flipsight.LegTimeout {
				continue
			}
			mover := l.BlackParticipant
			if l.Turn == flipsight.White {
				mover = 1 - mover
			}
			if mover == me {
				c.myTimeouts.Add(1)
				log.Error("the bot lost a leg on time", "match", id, "leg", i, "mode", mode)
			} else {
				c.oppTimeouts.Add(1)
			}
		}
	}
}

// injector fires one fault at a time, at random intervals around every.
func injector(fr *front, c *counters, every time.Duration, stop <-chan struct{}, log *slog.Logger) {
	for i := 0; ; i++ {
		d := every/2 + rand.N(every)
		select {
		case <-stop:
			return
		case <-time.After(d):
		}
		switch i % 6 {
		case 0:
			n := fr.cutStreams()
			c.cuts.Add(1)
			log.Info("fault: stream cut", "streams", n)
		case 1:
			fr.mu.Lock()
			fr.fail503 += 3
			fr.mu.Unlock()
			c.f503.Add(1)
			log.Info("fault: the next 3 API answers are 503")
		case 2:
			fr.mu.Lock()
			fr.loseNext++
			fr.mu.Unlock()
			c.lost.Add(1)
			log.Info("fault: the next move's answer is lost")
		case 3:
			if pid := anEngine(); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				c.crashes.Add(1)
				log.Info("fault: engine killed", "pid", pid)
			}
		case 4:
			if pid := anEngine(); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGSTOP)
				c.hangs.Add(1)
				log.Info("fault: engine stopped (hangs)", "pid", pid)
				go func() {
					time.Sleep(10 * time.Second)
					_ = syscall.Kill(pid, syscall.SIGCONT)
				}()
			}
		case 5:
			fr.stop()
			c.restarts.Add(1)
			log.Info("fault: server restart")
			time.Sleep(3 * time.Second)
			if err := fr.listen(); err != nil {
				log.Error("restart", "err", err)
				fmt.Fprintln(os.Stderr, "soak: server restart:", err)
				os.Exit(1)
			}
		}
	}
}

// writeHeapProfile writes the heap profile, after a GC, to
// out/heap/SECONDS.pprof.
func writeHeapProfile(out string, at time.Duration) error {
	dir := filepath.Join(out, "heap")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%05.0f.pprof", at.Seconds())))
	if err != nil {
		return err
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("heap profile: %w", err)
	}
	return f.Close()
}

// engineProcs returns the pids of this process's children.
func engineProcs() []int {
	me := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		// f[0] state, f[1] ppid
		if len(f) > 1 && f[1] == strconv.Itoa(me) && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

func anEngine() int {
	p := engineProcs()
	if len(p) == 0 {
		return 0
	}
	return p[rand.IntN(len(p))]
}

type snapshot struct {
	rssKiB, heapKiB          int64
	goroutines, fds, engines int
}

func sample() snapshot {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := snapshot{heapKiB: int64(ms.HeapInuse >> 10), goroutines: runtime.NumGoroutine(), engines: len(engineProcs())}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				s.rssKiB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			}
		}
	}
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		s.fds = len(ents)
	}
	return s
}

// quarterMax returns the largest value of the first and of the last
// quarter of xs.
func quarterMax(xs []int64) (first, last int64) {
	q := max(1, len(xs)/4)
	for i, x := range xs {
		if i < q {
			first = max(first, x)
		}
		if i >= len(xs)-q {
			last = max(last, x)
		}
	}
	return
}

func report(c *counters, base, after snapshot, rss, heap []int64, wall time.Duration, runErr error) bool {
	ok := true
	check := func(name string, got int64) {
		mark := "ok"
		if got != 0 {
			mark, ok = "FAIL", false
		}
		fmt.Printf("%-42s %8d  %s\n", name, got, mark)
	}
	fmt.Printf("soak: %.0f s of play, %d matches (", wall.Seconds(), c.matches.Load())
	sep := ""
	for _, m := range othello.AllModes() {
		n := int64(0)
		if v, found := c.byMode.Load(m); found {
			n = v.(*atomic.Int64).Load()
		}
		fmt.Printf("%s%s %d", sep, m, n)
		sep = ", "
	}
	fmt.Printf("), %d moves sent\n", c.moves.Load())
	fmt.Printf("faults: %d stream cuts, %d 503 bursts, %d lost answers, %d engine kills, %d engine hangs, %d server restarts\n",
		c.cuts.Load(), c.f503.Load(), c.lost.Load(), c.crashes.Load(), c.hangs.Load(), c.restarts.Load())
	fmt.Printf("results: %d won, %d lost, %d drawn; %d by discs; opponent legs lost on time %d; move answers other than 200: %d\n",
		c.won.Load(), c.defeats.Load(), c.drawn.Load(), c.byDiscs.Load(), c.oppTimeouts.Load(), c.moveErrors.Load())
	fmt.Printf("fallback moves (built-in quick move instead of the engine's): %d; engines the bot stopped at the budget: %d\n",
		c.fallbacks.Load(), c.engineKills.Load())
	p50, p99, top, n := c.arenaMovePercentiles()
	fmt.Printf("arena's handling of the bot's move requests: median %v, 99th percentile %v, max %v (%d requests)\n",
		p50.Round(time.Microsecond), p99.Round(time.Microsecond), top.Round(time.Microsecond), n)
	check("illegal moves", c.illegal.Load())
	check("legs the bot lost on time", c.myTimeouts.Load())
	check("matches not ended by discs", c.notByDiscs.Load())
	if c.matches.Load() == 0 {
		fmt.Println("no match was played: FAIL")
		ok = false
	}
	r0, r1 := quarterMax(rss)
	h0, h1 := quarterMax(heap)
	fmt.Printf("RSS max, first/last quarter: %d / %d KiB (%d samples); heap in use: %d / %d KiB\n", r0, r1, len(rss), h0, h1)
	fmt.Printf("goroutines before/after: %d / %d; fds: %d / %d; engine processes after: %d\n",
		base.goroutines, after.goroutines, base.fds, after.fds, after.engines)
	if after.goroutines > base.goroutines || after.fds > base.fds || after.engines != 0 {
		fmt.Println("resources did not come back: FAIL")
		ok = false
	}
	if runErr != nil {
		fmt.Printf("Run returned %v: FAIL\n", runErr)
		ok = false
	}
	return ok
}
