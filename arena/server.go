package arena

import (
	"context"
	"crypto/sha256"
	"fmt"
	"html/template"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
)

// Server is the arena. Its state (bots, matches, streams) is owned by one
// mutex, mu; HTTP handlers, the ticker and built-in players all take it for
// short, non-blocking sections. Built-in engines think without it.
type Server struct {
	cfg   Config
	clock clock.Clock
	log   *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	rng       *rand.Rand
	bots      []*bot
	byToken   map[[32]byte]*bot
	matches   map[int64]*match
	finished  []int64   // ids of ended matches, oldest first
	results   []*result // the page's last KeptResults ended matches, oldest first
	nextMatch int64
	nextRoom  int64
	streams   map[*stream]struct{}
	thinking  map[thinkKey]bool
	watchers  []chan struct{} // woken on every change (tournaments, demo)
	closed    bool
	page      *template.Template
	engines   *Engines // makes built-in bots' engines
	// adminHosts are the names the admin hooks answer to besides IP
	// addresses and localhost (fixed at New).
	adminHosts []string
}

// New returns a server for cfg. Call [Server.Run] (or drive [Server.Tick]
// with a manual clock) and [Server.Close] when done.
func New(cfg Config) (*Server, error) {
	cfg.withDefaults()
	seed := cfg.Seed
	if seed == 0 {
		seed = uint64(cfg.Clock.Now().UnixNano())
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:        cfg,
		clock:      cfg.Clock,
		log:        cfg.Logger,
		ctx:        ctx,
		cancel:     cancel,
		rng:        rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		byToken:    map[[32]byte]*bot{},
		matches:    map[int64]*match{},
		nextMatch:  1,
		nextRoom:   1,
		streams:    map[*stream]struct{}{},
		thinking:   map[thinkKey]bool{},
		page:       parsePage(),
		engines:    NewEngines(cfg.SearchThreads, 0),
		adminHosts: ownNames(cfg.AdminHosts),
	}
	for _, bc := range cfg.Bots {
		if _, err := s.AddBot(bc); err != nil {
			cancel()
			return nil, err
		}
	}
	return s, nil
}

// AddBot registers a bot and returns its id.
func (s *Server) AddBot(bc BotConfig) (int64, error) {
	if err := checkName(bc.Name); err != nil {
		return 0, err
	}
	if !bc.Builtin && bc.Token == "" {
		return 0, fmt.Errorf("bot %q: no token", bc.Name)
	}
	modes := bc.Modes
	if len(modes) == 0 {
		modes = []othello.Mode{othello.Std}
	}
	switch {
	case bc.MaxMatches > 0:
	case bc.Builtin:
		bc.MaxMatches = 1 << 20 // the site's bots take any number (variants are capped site-wide)
	default:
		bc.MaxMatches = DefaultMaxMatches
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bots {
		if b.name == bc.Name {
			return 0, fmt.Errorf("bot %q: name already registered", bc.Name)
		}
	}
	b := &bot{
		id:           int64(len(s.bots) + 1),
		name:         bc.Name,
		builtin:      bc.Builtin,
		level:        bc.Level,
		engine:       bc.Engine,
		sessions:     bc.sessions,
		autoMatch:    !bc.NoAutoMatch,
		maxMatches:   bc.MaxMatches,
		strict:       bc.Strict,
		registeredMS: s.nowMS(),
		rating:       newBotRating(),
		modes:        map[othello.Mode]bool{},
	}
	for _, m := range modes {
		if !b.modes[m] {
			b.modes[m] = true
			b.modeList = append(b.modeList, m.String())
		}
	}
	if b.builtin && b.engine == nil && b.sessions == nil {
		b.engine = s.engines.At(bc.Level)
		b.ownEngine = true
	}
	if !bc.Builtin {
		key := sha256.Sum256([]byte(bc.Token))
		if _, dup := s.byToken[key]; dup {
			return 0, fmt.Errorf("bot %q: token already used by another bot", bc.Name)
		}
		s.byToken[key] = b
	}
	s.bots = append(s.bots, b)
	return b.id, nil
}

// BotID returns the id of the bot named name.
func (s *Server) BotID(name string) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.botByName(name); b != nil {
		return b.id, true
	}
	return 0, false
}

// Online reports whether the bot named name is connected now.
func (s *Server) Online(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.botByName(name)
	return b != nil && s.online(b, s.nowMS())
}

// Handler returns the HTTP handler of the API, the stream, the page and the
// admin hooks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(APIPath, s.serveAPI)
	mux.HandleFunc(StreamPath, s.serveStream)
	mux.HandleFunc("/arena/state.json", s.serveStateJSON)
	mux.Handle("/arena/admin/", s.adminHandler())
	mux.HandleFunc("/{$}", s.servePage)
	mux.HandleFunc("/arena/live", s.serveLive)
	mux.HandleFunc("GET /arena/matches/{id}", s.serveReplay)
	return mux
}

// API and stream paths, as on othelloclub.com.
const (
	APIPath    = "/flipsight/bot_match_api.php"
	StreamPath = "/flipsight_api/bot-stream"
)

// Run ticks the server every interval of real time until ctx ends: timeouts,
// expiry, disconnects, pings and auto-matching happen on ticks (and on every
// request). Use it with the system clock.
func (s *Server) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.Tick()
		}
	}
}

// Tick applies everything due at the clock's current time and wakes the
// streams (which send a ping when one is due).
func (s *Server) Tick() {
	s.mu.Lock()
	now := s.nowMS()
	s.advanceAll(now)
	if s.cfg.AutoMatch {
		s.autoMatch(now)
	}
	s.prune(now)
	for st := range s.streams {
		st.wake()
	}
	s.mu.Unlock()
}

// Close stops built-in players and streams and waits for them. It does not
// close the engines given in the configuration.
func (s *Server) Close() {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		return
	}
	s.cancel()
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bots {
		if b.builtin && b.ownEngine {
			_ = b.engine.Close()
		}
	}
}

// Watch returns a channel that receives (without blocking the server) after
// every change of any match, and a function to stop watching.
func (s *Server) Watch() (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.watchers = append(s.watchers, ch)
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, w := range s.watchers {
			if w == ch {
				s.watchers = append(s.watchers[:i], s.watchers[i+1:]...)
				return
			}
		}
	}
}

func (s *Server) nowMS() int64 { return s.clock.Now().UnixMilli() }

func (s *Server) botByID(id int64) *bot {
	if id < 1 || id > int64(len(s.bots)) {
		return nil
	}
	return s.bots[id-1]
}

func (s *Server) botByName(name string) *bot {
	for _, b := range s.bots {
		if b.name == name {
			return b
		}
	}
	return nil
}

// botByToken finds the bot of a Bearer token (by its hash, so the map never
// holds tokens and lookups do not compare them byte by byte).
func (s *Server) botByToken(token string) *bot {
	if token == "" {
		return nil
	}
	return s.byToken[sha256.Sum256([]byte(token))]
}

// bot is a registered or built-in bot. Guarded by Server.mu.
type bot struct {
	id           int64
	name         string
	builtin      bool
	level        int
	engine       engines.Engine
	sessions     *matchSessions // a tournament's side: a session per match (engine is nil)
	ownEngine    bool
	modes        map[othello.Mode]bool
	modeList     []string
	autoMatch    bool
	maxMatches   int
	registeredMS int64
	env          *flipsight.Environment
	streams      int
	streamEndMS  int64 // when the last stream closed
	lastSeenMS   int64 // last authenticated request
	autoOffUntil int64 // out of automatic matching until then
	strict       bool  // a failed engine answer makes no move
	rating       botRating
}

// connected returns whether the bot is connected at now, and if not,
// since when it has been disconnected.
func (s *Server) connected(b *bot, now int64) (bool, int64) {
	if b.builtin || b.streams > 0 {
		return true, 0
	}
	if b.lastSeenMS > 0 && now-b.lastSeenMS <= s.cfg.PollGrace.Milliseconds() {
		return true, 0
	}
	since := max(b.streamEndMS, b.lastSeenMS+s.cfg.PollGrace.Milliseconds())
	return false, since
}

func (s *Server) online(b *bot, now int64) bool {
	ok, _ := s.connected(b, now)
	return ok
}

// running counts the bot's running matches.
func (s *Server) running(b *bot) int {
	n := 0
	for _, m := range s.matches {
		if m.status == flipsight.MatchRunning && m.has(b.id) {
			n++
		}
	}
	return n
}

func (s *Server) wire(b *bot, now int64) flipsight.Bot {
	out := flipsight.Bot{
		ID:        b.id,
		Name:      b.name,
		OwnerID:   "local",
		OwnerName: "Local",
		Owner: &flipsight.Owner{
			PlayerID: "local", Name: "Local", Photo: "/img/no_profile.gif",
		},
		EngineLevel:    []byte("null"),
		Rating:         b.rating.wire(),
		SupportedGames: append([]string{}, b.modeList...),
		AutoMatch:      b.autoMatch,
		RegisteredAt:   time.UnixMilli(b.registeredMS).UTC().Format(time.DateTime),
		RegisteredAtTS: b.registeredMS / 1000,
		Environment:    b.env,
		IsBuiltin:      b.builtin,
		Online:         s.online(b, now),
		Photo:          fmt.Sprintf("%s?action=photo&bot_id=%d&v=%d", APIPath, b.id, b.registeredMS),
	}
	if b.builtin {
		out.EngineLevel = []byte(fmt.Sprint(b.level))
	}
	if out.Environment == nil {
		out.Environment = &flipsight.Environment{}
	}
	return out
}

// changed records a change of m: stream events, watchers, built-in players.
func (s *Server) changed(m *match) {
	for st := range s.streams {
		if m.has(st.bot.id) {
			st.mark(m.id)
		}
	}
	for _, w := range s.watchers {
		select {
		case w <- struct{}{}:
		default:
		}
	}
	if m.status == flipsight.MatchRunning {
		s.schedule(m)
	}
}
