package flipsight

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// ErrBadEvent wraps a stream line that is not a valid event. The stream
// stays usable: the caller may log it and call Next again.
var ErrBadEvent = errors.New("flipsight: bad stream event")

// Stream is an open NDJSON event stream. Next must be called from one
// goroutine at a time; Close may be called from any goroutine, also while
// Next is blocked.
type Stream struct {
	body        io.ReadCloser
	r           *bufio.Reader
	cancel      context.CancelFunc
	readTimeout time.Duration
	maxLine     int

	mu     sync.Mutex
	timer  *time.Timer
	silent bool
	closed bool
}

// OpenStream connects to the event stream with the bot's token. A non-200
// answer is an *APIError with Op "bot-stream" (401 token rejected, 429 too
// many streams). The stream ends when ctx is cancelled or Close is called.
func (c *Client) OpenStream(ctx context.Context) (*Stream, error) {
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.stream.String(), nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("flipsight bot-stream: %w", err)
	}
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("Authorization", c.token.bearer())
	req.Header.Set("User-Agent", c.userAgent)
	// Headers must arrive within the request timeout; the body may then
	// stay open for hours.
	headerTimer := time.AfterFunc(c.timeout, cancel)
	resp, err := c.http.Do(req)
	headerTimer.Stop()
	if err != nil {
		cancel()
		return nil, fmt.Errorf("flipsight bot-stream: %w", scrub(err))
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := readLimited(resp.Body, 64<<10)
		resp.Body.Close()
		cancel()
		return nil, newAPIError("bot-stream", resp.StatusCode, resp.Header, data)
	}
	s := &Stream{
		body:        resp.Body,
		r:           bufio.NewReaderSize(resp.Body, 64<<10),
		cancel:      cancel,
		readTimeout: c.readTimeout,
		maxLine:     c.maxEvent,
	}
	s.timer = time.AfterFunc(s.readTimeout, s.expire)
	return s, nil
}

// expire runs when the stream was silent for readTimeout.
func (s *Stream) expire() {
	s.mu.Lock()
	s.silent = true
	s.mu.Unlock()
	s.cancel()
}

// Next returns the next event. Blank lines are skipped. Errors: io.EOF when
// the server closed the stream, ErrStreamSilent when no line arrived within
// the read timeout, ErrResponseTooLarge for an oversized line (all three
// end the stream), and an error wrapping ErrBadEvent for an undecodable
// line (the stream goes on).
func (s *Stream) Next() (Event, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		ev, err := DecodeEvent(line)
		if err != nil {
			return Event{}, err
		}
		return ev, nil
	}
}

func (s *Stream) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(chunk) > 0 {
			// Any bytes prove the connection alive.
			s.touch()
		}
		if len(buf)+len(chunk) > s.maxLine {
			s.Close()
			return nil, fmt.Errorf("%w: stream line over %d bytes", ErrResponseTooLarge, s.maxLine)
		}
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, s.readError(err)
		}
	}
}

func (s *Stream) touch() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && !s.silent {
		s.timer.Reset(s.readTimeout)
	}
}

func (s *Stream) readError(err error) error {
	s.mu.Lock()
	silent, closed := s.silent, s.closed
	s.mu.Unlock()
	switch {
	case silent:
		return ErrStreamSilent
	case closed:
		return fmt.Errorf("flipsight bot-stream: closed: %w", io.EOF)
	case errors.Is(err, io.EOF):
		return io.EOF
	}
	return fmt.Errorf("flipsight bot-stream: read: %w", scrub(err))
}

// Close ends the stream and releases its connection.
func (s *Stream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.timer.Stop()
	s.mu.Unlock()
	s.cancel()
	return s.body.Close()
}

// DecodeEvent decodes one stream line. It fails (wrapping ErrBadEvent) on
// invalid JSON, a missing type, or a match event without a match with a
// non-zero id, or values out of range (see Match.Check; the error then
// wraps ErrBadObject too). Unknown types decode without error.
func DecodeEvent(line []byte) (Event, error) {
	var ev Event
	if err := unmarshalTolerant(bytes.TrimSpace(line), &ev); err != nil {
		return Event{}, fmt.Errorf("%w: %v", ErrBadEvent, err)
	}
	if ev.Type == "" {
		return Event{}, fmt.Errorf("%w: no type", ErrBadEvent)
	}
	if ev.Type == EventMatch && (ev.Match == nil || ev.Match.ID == 0) {
		return Event{}, fmt.Errorf("%w: match event without a match id", ErrBadEvent)
	}
	if err := ev.check(); err != nil {
		return Event{}, fmt.Errorf("%w: %w", ErrBadEvent, err)
	}
	return ev, nil
}
