package bot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/jsonline"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// specEngineFactory is an --engine factory (as flipbot makes for --engine)
// running the spec-checking engine, which records to path.
func specEngineFactory(t *testing.T, path string, capMS int64) Engines {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := fmt.Sprintf("'%s' %s '%s' %d", exe, specEngineArg, path, capMS)
	return Engines{Name: "spec", SpecTimed: true, Wire: true, Provider: providerOf(PerMatch, func() (engines.Engine, error) {
		return jsonline.New(jsonline.Options{Command: cmd})
	})}
}

func readSpecRecords(t *testing.T, path string) []specRecord {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []specRecord
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r specRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	return out
}

// TestSpecEngineSeesTheSpec plays a match of every mode, with the stream and
// without, through an --engine engine that checks every request against the
// spec's field definitions: no request differs from the spec, and every own
// turn of every leg (forced ones, passes included) reached the engine once.
func TestSpecEngineSeesTheSpec(t *testing.T) {
	t.Parallel()
	const capMS = 2000
	for _, mode := range othello.AllModes() {
		for _, noStream := range []bool{false, true} {
			name := mode.String()
			if noStream {
				name += "/no-stream"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				fs := newFakeServer(t, serverOpts{clock: 30 * time.Second})
				path := filepath.Join(t.TempDir(), "requests")
				br := startBot(t, fs, specEngineFactory(t, path, capMS), func(o *Options, _ *flipsight.Config) {
					o.NoStream = noStream
					o.MaxThink = capMS * time.Millisecond
				})
				waitOnline(t, fs, br)
				id := challenge(t, fs, "house", mode)
				r := fs.waitResult(t, id, 3*time.Minute)
				requireClean(t, fs, r)
				m, ok := fs.arena.MatchJSON(id)
				require.True(t, ok)
				me := m.Participant(br.bot.Status().Bot.ID)
				require.GreaterOrEqual(t, me, 0)
				// Stopping waits for the engines' closes, which wait for the
				// forced turns still being shown to them.
				br.stop()
				_, stopped := br.wait(10 * time.Second)
				require.True(t, stopped)
				recs := readSpecRecords(t, path)
				asked := map[[2]int64]bool{}
				for _, rec := range recs {
					assert.Empty(t, rec.Violations, "request %+v", rec)
					assert.Equal(t, id, rec.Match)
					asked[[2]int64{int64(rec.Leg), rec.Revision}] = true
				}
				for i, l := range m.State.Legs {
					// The leg's revision goes up by one a move: the own
					// move at history index k was made at revision k.
					for k, h := range l.History {
						if h.Participant != nil && *h.Participant == me {
							assert.True(t, asked[[2]int64{int64(i), int64(k)}], "leg %d revision %d (%v): the own turn did not reach the engine", i, k, h.Move)
						}
					}
				}
				assert.NotContains(t, br.logs.String(), "playing a fallback move")
			})
		}
	}
}

// recorder fronts a fakeServer: it notes when each agent_poll arrives and
// what each agent_move asked, and can refuse the stream or moves, without
// the fake's own fault plan.
type recorder struct {
	fs  *fakeServer
	srv *httptest.Server

	mu          sync.Mutex
	polls       []time.Time
	moves       map[[3]int64]int      // (match, leg, revision) → agent_move requests
	requests    map[[3]int64][]string // (match, leg, revision) → the moves requested, in order
	streamDown  bool                  // every stream open answers 503
	refuseMoves int                   // the next agent_move calls answer this status…
	refuseWith  int
	refused     [][3]int64    // the moves refused, in order
	pollDelay   time.Duration // each agent_poll is answered this late
	failPolls   int           // the next agent_poll calls answer 503
	engineEnv   string        // environment.engine of the last agent_poll
}

func newRecorder(t *testing.T, fs *fakeServer) *recorder {
	r := &recorder{fs: fs, moves: map[[3]int64]int{}, requests: map[[3]int64][]string{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(func() {
		r.srv.CloseClientConnections()
		r.srv.Close()
	})
	return r
}

func (r *recorder) apiURL() string { return r.srv.URL + arena.APIPath }

func (r *recorder) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if req.URL.Path == flipsight.StreamPath && r.streamDown {
		r.mu.Unlock()
		answerError(w, http.StatusServiceUnavailable, flipsight.CodeStorageUnavailable)
		return
	}
	r.mu.Unlock()
	if req.Method == http.MethodPost && req.URL.Path == arena.APIPath {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		var a struct {
			Action   string          `json:"action"`
			MatchID  int64           `json:"match_id"`
			Leg      int64           `json:"leg"`
			Revision int64           `json:"revision"`
			Move     json.RawMessage `json:"move"`
			Env      *struct {
				Engine string `json:"engine"`
			} `json:"environment"`
		}
		_ = json.Unmarshal(body, &a)
		r.mu.Lock()
		switch a.Action {
		case flipsight.ActionPoll:
			r.polls = append(r.polls, time.Now())
			if a.Env != nil {
				r.engineEnv = a.Env.Engine
			}
			if r.failPolls > 0 {
				r.failPolls--
				r.mu.Unlock()
				answerError(w, http.StatusServiceUnavailable, flipsight.CodeStorageUnavailable)
				return
			}
			if d := r.pollDelay; d > 0 {
				r.mu.Unlock()
				time.Sleep(d)
				r.mu.Lock()
			}
		case flipsight.ActionMove:
			key := [3]int64{a.MatchID, a.Leg, a.Revision}
			r.moves[key]++
			r.requests[key] = append(r.requests[key], string(a.Move))
			if r.refuseMoves > 0 {
				r.refuseMoves--
				r.refused = append(r.refused, [3]int64{a.MatchID, a.Leg, a.Revision})
				status := r.refuseWith
				r.mu.Unlock()
				answerError(w, status, "")
				return
			}
		}
		r.mu.Unlock()
	}
	r.fs.front.ServeHTTP(w, req)
}

// answerError answers as the service does when it refuses a call.
func answerError(w http.ResponseWriter, status int, code flipsight.ErrorCode) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(flipsight.ErrorResponse{Error: string(code)})
}

// pollGaps returns the gaps between the polls made after from.
func (r *recorder) pollGaps(from time.Time) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pollGapsLocked(from)
}

// pollGapsLocked is pollGaps with r.mu held.
func (r *recorder) pollGapsLocked(from time.Time) []time.Duration {
	var gaps []time.Duration
	var last time.Time
	for _, p := range r.polls {
		if p.Before(from) {
			continue
		}
		if !last.IsZero() {
			gaps = append(gaps, p.Sub(last))
		}
		last = p
	}
	return gaps
}

// TestIdlePollsWhileTheStreamIsDown: with the stream refused at every
// reconnection (its backoff growing from BackoffMin), an idle bot still
// polls every PollIdle — failed reconnections must not push the poll back —
// and never more often than MinPollGap.
func TestIdlePollsWhileTheStreamIsDown(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	rec := newRecorder(t, fs)
	rec.streamDown = true
	const idle, gap = 500 * time.Millisecond, 100 * time.Millisecond
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		c.APIURL = rec.apiURL()
		o.Timing = Timing{PollStream: 5 * time.Second, PollMatch: gap, PollIdle: idle, MinPollGap: gap,
			BackoffMin: 100 * time.Millisecond, BackoffMax: 3 * time.Second}
	})
	waitOnline(t, fs, br)
	from := time.Now()
	time.Sleep(6 * time.Second)
	gaps := rec.pollGaps(from)
	require.GreaterOrEqual(t, len(gaps), 5, "polls at least every %v for 4 s", idle)
	for _, g := range gaps {
		assert.LessOrEqual(t, g, idle+250*time.Millisecond, "an idle poll came late: %v", gaps)
		assert.GreaterOrEqual(t, g, gap-5*time.Millisecond, "polls closer than the minimum gap: %v", gaps)
	}
}

// TestRefusedMovesPollAtMostOnceASecond: refused moves (409) make the bot
// re-poll to check the state; without the stream those polls keep the
// spec's gap too (with the stream up the floor does not apply: see
// TestHumanTurnsWithTheStreamArePolledAtOnce).
func TestRefusedMovesPollAtMostOnceASecond(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 20 * time.Second})
	rec := newRecorder(t, fs)
	rec.refuseMoves, rec.refuseWith = 6, http.StatusConflict
	const gap = 300 * time.Millisecond
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		c.APIURL = rec.apiURL()
		o.NoStream = true
		o.Timing.MinPollGap = gap
	})
	waitOnline(t, fs, br)
	from := time.Now()
	id := challenge(t, fs, "house", othello.Std)
	waitFor(t, 15*time.Second, "the refusals spent", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.refuseMoves == 0
	})
	time.Sleep(2 * gap)
	gaps := rec.pollGaps(from)
	require.NotEmpty(t, gaps)
	for _, g := range gaps {
		// The bot keeps a twentieth to spare; the test server's own
		// scheduling on a loaded machine may eat three times as much.
		assert.GreaterOrEqual(t, g, gap-gap/7, "polls closer than the minimum gap: %v", gaps)
	}
	_ = id
}

// TestRefusedMoveRequestIsNotRetried: a move refused with 400, 403, 405 or
// 413 is not sent again (the spec retries lost connections and 503 only):
// the bot polls and plays the leg again from the fresh state with another
// move, so the leg is not left to lose on time; 503 is retried with the
// same move.
func TestRefusedMoveRequestIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		retry  bool
	}{
		{http.StatusBadRequest, false}, {http.StatusForbidden, false}, {http.StatusMethodNotAllowed, false},
		{http.StatusRequestEntityTooLarge, false}, {http.StatusServiceUnavailable, true},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, serverOpts{clock: 10 * time.Second})
			rec := newRecorder(t, fs)
			rec.refuseMoves, rec.refuseWith = 1, tc.status
			br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(_ *Options, c *flipsight.Config) {
				c.APIURL = rec.apiURL()
			})
			waitOnline(t, fs, br)
			id := challenge(t, fs, "house", othello.Std)
			waitFor(t, 10*time.Second, "the refused move", func() bool {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				return rec.refuseMoves == 0
			})
			var first [3]int64
			waitFor(t, 5*time.Second, "the refused leg played on", func() bool {
				rec.mu.Lock()
				defer rec.mu.Unlock()
				require.Len(t, rec.refused, 1)
				first = rec.refused[0]
				for k, n := range rec.moves {
					if k[0] == first[0] && k[1] == first[1] && k[2] > first[2] && n > 0 {
						return true
					}
				}
				return false
			})
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Equal(t, id, first[0])
			reqs := rec.requests[first]
			require.GreaterOrEqual(t, len(reqs), 2, "the leg was played again at the refused revision: %v", reqs)
			if tc.retry {
				assert.Equal(t, reqs[0], reqs[1], "503 is retried with the same move")
			} else {
				assert.NotContains(t, reqs[1:], reqs[0], "HTTP %d: the refused request is never sent again", tc.status)
			}
		})
	}
}

// TestHumanRoomPlaysEveryRound: a human room plays several rounds under one
// id (−room_id), each with a new round_no; the bot plays every one of them,
// not only the first.
func TestHumanRoomPlaysEveryRound(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{})
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), nil)
	waitOnline(t, fs, br)
	h, err := fs.arena.CreateHuman(arena.HumanOptions{Bot: "me", Mode: othello.Std, Clock: 20 * time.Second,
		Rounds: 3, RoundGap: 200 * time.Millisecond})
	require.NoError(t, err)
	var r arena.MatchResult
	waitFor(t, 60*time.Second, "the room's three rounds", func() bool {
		r, _ = fs.arena.Result(h)
		return r.Ended
	})
	assert.Equal(t, int64(3), r.Round)
	assert.Equal(t, flipsight.MatchFinished, r.Status)
	assert.Equal(t, flipsight.FinishDiscs, r.FinishReason, "the last round was played, not lost on time")
	m, ok := fs.arena.MatchJSON(h)
	require.True(t, ok)
	require.NotNil(t, m.RoundNo)
	assert.Equal(t, int64(3), *m.RoundNo)
}

// TestPollsStartAnIntervalApart: without the stream, in a match, polls
// start PollMatch apart even when each answer takes long (a distant
// server): the answer's round trip is not added to the interval.
func TestPollsStartAnIntervalApart(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, serverOpts{clock: 60 * time.Second})
	rec := newRecorder(t, fs)
	// An interval of 1 s and answers 600 ms late: start to start the gaps
	// are 1 s, answer to start they would be 1.6 s; the test's bound lies
	// between, with room for a loaded machine under the race detector.
	const every, delay = time.Second, 600 * time.Millisecond
	br := startBot(t, fs, factoryOf(&fakeEngine{}, Shared), func(o *Options, c *flipsight.Config) {
		c.APIURL = rec.apiURL()
		o.NoStream = true
		o.Timing = Timing{PollStream: 10 * time.Second, PollMatch: every, PollIdle: every, MinPollGap: every,
			BackoffMin: time.Second, BackoffMax: 30 * time.Second}
	})
	waitOnline(t, fs, br)
	rec.mu.Lock()
	rec.pollDelay = delay
	rec.mu.Unlock()
	from := time.Now()
	time.Sleep(6 * time.Second)
	gaps := rec.pollGaps(from)
	require.GreaterOrEqual(t, len(gaps), 4)
	var sum time.Duration
	for _, g := range gaps {
		sum += g
		// The test server's own scheduling on a loaded machine (load 20:
		// 0.97 s) may take from the bot's twentieth to spare.
		assert.GreaterOrEqual(t, g, every-every/10, "never closer than the minimum gap: %v", gaps)
	}
	mean := sum / time.Duration(len(gaps))
	assert.Less(t, mean, every+delay/2, "polls start an interval apart, not an interval after each answer: %v", gaps)
}
