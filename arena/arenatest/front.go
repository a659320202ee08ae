// Package arenatest provides test doubles around a FlipSight-compatible
// server (the arena's [arena.Server.Handler], or any handler that serves the
// same two paths), for the tests of bot clients and for the soak:
//
//   - [Front], an http.Handler in front of the server that injects the
//     faults of a [Plan] into one bot's requests (error answers with
//     Retry-After, dropped, lost, hung and delayed requests, refused, silent
//     and cut streams) and reports every move request it saw;
//   - [Endpoint], an HTTP server on a fixed loopback address that can go
//     away and come back (a server restart as a client sees it).
//
// Faults are one-shot: each fires once, on the next request it applies to,
// and is consumed only when it fires. A test sets them with [Front.Inject]
// before or while the bot plays.
//
// Files: front.go ([Front], [Plan], [Fault]), endpoint.go ([Endpoint]).
//
// It may import arena (the API's path) and flipsight (the stream's path,
// the error answers it writes); the bot's tests and the soak import it.
package arenatest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/flipsight"
)

// Answer is an error answer the front gives in the server's place.
type Answer struct {
	// Status is the HTTP status, e.g. http.StatusServiceUnavailable.
	Status int
	// Code is the answer's error string; when empty it is the one the
	// server gives with that status: stale_revision for 409, too many
	// streams for 429, bot match storage unavailable otherwise.
	Code flipsight.ErrorCode
	// RetryAfter, when positive, is sent as a Retry-After header (whole
	// seconds, rounded up).
	RetryAfter time.Duration
}

// code returns the answer's error string.
func (a Answer) code() flipsight.ErrorCode {
	switch {
	case a.Code != "":
		return a.Code
	case a.Status == http.StatusConflict:
		return flipsight.CodeStaleRevision
	case a.Status == http.StatusTooManyRequests:
		return flipsight.CodeTooManyStreams
	}
	return flipsight.CodeStorageUnavailable
}

// write sends the answer.
func (a Answer) write(w http.ResponseWriter) {
	if a.RetryAfter > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(int64(math.Ceil(a.RetryAfter.Seconds()))))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	_ = json.NewEncoder(w).Encode(flipsight.ErrorResponse{Error: string(a.code())})
}

// Plan is the faults still to fire. Counts and lists are consumed as their
// faults fire; a request meets at most one fault, the first that applies in
// the order of the fields below.
type Plan struct {
	// Requests: the next API requests (any action) get these answers
	// without reaching the server.
	Requests []Answer
	// Moves: the next agent_move requests get these answers without
	// reaching the server.
	Moves []Answer
	// LoseMoveAnswers: the next agent_move requests reach the server, then
	// the connection is closed without its answer (the move is applied,
	// the client does not know).
	LoseMoveAnswers int
	// DropMoves: the next agent_move requests are dropped (the connection
	// closed) before the server.
	DropMoves int
	// HangMoves: the next agent_move requests get no answer at all until
	// the client gives up; they never reach the server.
	HangMoves int
	// MoveDelay holds every agent_move request this long before it reaches
	// the server or meets its fault (a slow link or a starved server: the
	// mover's clock runs). It is not consumed.
	MoveDelay time.Duration
	// DropPolls: the next agent_poll requests are dropped before the
	// server.
	DropPolls int
	// Streams: the next stream requests get these answers.
	Streams []Answer
	// DropStreams: the next stream requests are dropped before the
	// server, after the Streams answers: the connection is closed in the
	// middle of a status line, so the client sees a failed connection with
	// no HTTP answer, as when the server goes away (closed with nothing
	// said, Go's HTTP client would send a GET again by itself on another
	// kept-alive connection).
	DropStreams int
	// SilentStreams: the next streams get their headers and then nothing
	// until the client goes away.
	SilentStreams int
	// CutStreamAfter, when positive, ends the next stream after this many
	// lines from the server.
	CutStreamAfter int
}

// Fault says what the front did to a request.
type Fault int

// The faults of MoveCall.Fault.
const (
	// None: the request went to the server and its answer back.
	None Fault = iota
	// Answered: the front answered in the server's place (Plan.Requests,
	// Plan.Moves).
	Answered
	// LostAnswer: the server handled the request; its answer was not sent.
	LostAnswer
	// Dropped: the connection was closed before the server.
	Dropped
	// Hung: held without an answer until the client went away.
	Hung
)

// String names the fault.
func (f Fault) String() string {
	switch f {
	case None:
		return "none"
	case Answered:
		return "answered"
	case LostAnswer:
		return "lost answer"
	case Dropped:
		return "dropped"
	case Hung:
		return "hung"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// MoveCall is an agent_move request the front saw, reported to
// Options.OnMove.
type MoveCall struct {
	// Match, Leg, Revision and Move are the request's fields.
	Match, Leg, Revision int64
	Move                 json.RawMessage
	// Fault is what the front did to the request.
	Fault Fault
	// Answer is the front's answer when Fault is Answered.
	Answer Answer
	// Reached reports whether the server handled the request: false when
	// the front answered, dropped or held it, and when the client went away
	// during Plan.MoveDelay.
	Reached bool
	// Status and Code are the server's answer when Reached (Code empty on
	// success); Took is how long the server took to handle it.
	Status int
	Code   flipsight.ErrorCode
	Took   time.Duration
}

// Options configure a Front.
type Options struct {
	// Token, when set, limits the front to the requests that carry it as
	// their Bearer token: the others pass to the server untouched, meet no
	// fault and are not counted. Empty: every request.
	Token string
	// OnMove, when set, is called with every agent_move request the front
	// handled, on the request's goroutine, before the client gets the
	// answer or sees its connection closed (so a request is reported before
	// the client can send the next one); a hung request, and one whose
	// client went away during Plan.MoveDelay, once the client has gone.
	OnMove func(MoveCall)
}

// Front is an http.Handler in front of a FlipSight-compatible server that
// injects the faults of its Plan into the bot's requests. It is safe for
// concurrent use.
type Front struct {
	next http.Handler
	opts Options

	polls, streamCount atomic.Int64

	mu      sync.Mutex
	plan    Plan
	streams map[*http.Request]context.CancelFunc
}

// NewFront returns a front for next with no fault planned.
func NewFront(next http.Handler, opts Options) *Front {
	return &Front{next: next, opts: opts, streams: map[*http.Request]context.CancelFunc{}}
}

// Inject changes the plan: change is called with the faults still to fire,
// under the front's lock (adding to a count or a list adds faults).
func (f *Front) Inject(change func(*Plan)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.plan)
}

// Pending returns a copy of the faults still to fire.
func (f *Front) Pending() Plan {
	f.mu.Lock()
	defer f.mu.Unlock()
	p := f.plan
	p.Requests = append([]Answer(nil), p.Requests...)
	p.Moves = append([]Answer(nil), p.Moves...)
	p.Streams = append([]Answer(nil), p.Streams...)
	return p
}

// CutStreams ends every stream open through the front now and returns how
// many there were.
func (f *Front) CutStreams() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, cancel := range f.streams {
		cancel()
	}
	return len(f.streams)
}

// Polls returns how many agent_poll requests the front has seen (faulty
// ones included).
func (f *Front) Polls() int64 { return f.polls.Load() }

// Streams returns how many stream requests the front has seen (refused
// ones included).
func (f *Front) Streams() int64 { return f.streamCount.Load() }

// ServeHTTP serves r through the plan.
func (f *Front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case f.opts.Token != "" && r.Header.Get("Authorization") != "Bearer "+f.opts.Token:
		f.next.ServeHTTP(w, r)
	case r.URL.Path == flipsight.StreamPath:
		f.serveStream(w, r)
	case r.Method == http.MethodPost && r.URL.Path == arena.APIPath:
		f.serveAPI(w, r)
	default:
		f.next.ServeHTTP(w, r)
	}
}

// pop takes the first answer of l, if any.
func pop(l *[]Answer) (Answer, bool) {
	if len(*l) == 0 {
		return Answer{}, false
	}
	a := (*l)[0]
	*l = (*l)[1:]
	return a, true
}

// take consumes one of the count n, if any.
func take(n *int) bool {
	if *n <= 0 {
		return false
	}
	*n--
	return true
}

// serveStream serves a stream request: refused, dropped, silent, cut after some
// lines, or passed on; in every case it can be cut by CutStreams.
func (f *Front) serveStream(w http.ResponseWriter, r *http.Request) {
	f.streamCount.Add(1)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	f.mu.Lock()
	ans, refuse := pop(&f.plan.Streams)
	drop := !refuse && take(&f.plan.DropStreams)
	silent := !refuse && !drop && take(&f.plan.SilentStreams)
	cut := 0
	if !refuse && !drop && !silent {
		cut, f.plan.CutStreamAfter = f.plan.CutStreamAfter, 0
	}
	f.streams[r] = cancel
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.streams, r)
		f.mu.Unlock()
	}()
	switch {
	case refuse:
		ans.write(w)
	case drop:
		breakOff(w)
	case silent:
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		<-ctx.Done()
	case cut > 0:
		f.next.ServeHTTP(&cutWriter{ResponseWriter: w, left: cut, cancel: cancel}, r.WithContext(ctx))
	default:
		f.next.ServeHTTP(w, r.WithContext(ctx))
	}
}

// apiRequest is the part of an API request the front reads.
type apiRequest struct {
	Action   string          `json:"action"`
	MatchID  int64           `json:"match_id"`
	Leg      int64           `json:"leg"`
	Revision int64           `json:"revision"`
	Move     json.RawMessage `json:"move"`
}

// serveAPI serves a POST to the API through the plan.
func (f *Front) serveAPI(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, arena.MaxBodyBytes+1))
	if err != nil {
		return // the client went away
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req apiRequest
	_ = json.Unmarshal(body, &req) // the server answers a bad body
	if req.Action == flipsight.ActionPoll {
		f.polls.Add(1)
	}
	f.mu.Lock()
	ans, answer := pop(&f.plan.Requests)
	switch {
	case answer:
		f.mu.Unlock()
		if req.Action == flipsight.ActionMove {
			f.report(req, MoveCall{Fault: Answered, Answer: ans})
		}
		ans.write(w)
	case req.Action == flipsight.ActionPoll:
		drop := take(&f.plan.DropPolls)
		f.mu.Unlock()
		if drop {
			abort(w)
			return
		}
		f.next.ServeHTTP(w, r)
	case req.Action == flipsight.ActionMove:
		f.serveMove(w, r, req) // unlocks
	default:
		f.mu.Unlock()
		f.next.ServeHTTP(w, r)
	}
}

// serveMove serves an agent_move request through the plan; it is called
// with f.mu held and releases it.
func (f *Front) serveMove(w http.ResponseWriter, r *http.Request, req apiRequest) {
	var c MoveCall
	p := &f.plan
	if a, ok := pop(&p.Moves); ok {
		c.Fault, c.Answer = Answered, a
	} else if take(&p.LoseMoveAnswers) {
		c.Fault = LostAnswer
	} else if take(&p.DropMoves) {
		c.Fault = Dropped
	} else if take(&p.HangMoves) {
		c.Fault = Hung
	}
	delay := p.MoveDelay
	f.mu.Unlock()
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			f.report(req, c)
			return
		}
	}
	switch c.Fault {
	case Answered:
		f.report(req, c)
		c.Answer.write(w)
		return
	case Dropped:
		f.report(req, c)
		abort(w)
		return
	case Hung:
		<-r.Context().Done()
		f.report(req, c)
		return
	}
	rec := httptest.NewRecorder()
	began := time.Now()
	f.next.ServeHTTP(rec, r)
	c.Reached, c.Took, c.Status = true, time.Since(began), rec.Code
	if rec.Code != http.StatusOK {
		var er flipsight.ErrorResponse
		_ = json.Unmarshal(rec.Body.Bytes(), &er)
		c.Code = flipsight.ErrorCode(er.Error)
	}
	f.report(req, c)
	if c.Fault == LostAnswer {
		abort(w)
		return
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

// report passes a move request to Options.OnMove.
func (f *Front) report(req apiRequest, c MoveCall) {
	if f.opts.OnMove == nil {
		return
	}
	c.Match, c.Leg, c.Revision, c.Move = req.MatchID, req.Leg, req.Revision, req.Move
	f.opts.OnMove(c)
}

// abort closes the request's connection without an answer.
func abort(w http.ResponseWriter) {
	if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = c.Close()
		return
	}
	panic(http.ErrAbortHandler)
}

// breakOff closes the client's connection in the middle of a status line.
func breakOff(w http.ResponseWriter) {
	c, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_, _ = buf.WriteString("HTTP/1.1 5")
	_ = buf.Flush()
	_ = c.Close()
}

// cutWriter ends a stream (cancels its request) after left lines.
type cutWriter struct {
	http.ResponseWriter
	left   int
	cancel context.CancelFunc
}

// errCut is what a cut stream's writes return.
var errCut = errors.New("arenatest: stream cut")

func (c *cutWriter) Write(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errCut
	}
	c.left -= bytes.Count(p, []byte("\n"))
	if c.left <= 0 {
		c.cancel()
	}
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *cutWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
