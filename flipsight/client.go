package flipsight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults of Config.
const (
	DefaultRequestTimeout    = 15 * time.Second
	DefaultMaxResponseBytes  = 8 << 20
	DefaultMaxEventBytes     = 4 << 20
	DefaultStreamReadTimeout = 25 * time.Second // pings come every 10 s
	DefaultUserAgent         = "flipbot"
)

// Config configures a Client. Only Token is required.
type Config struct {
	// APIURL is the POST endpoint; DefaultAPIURL when empty.
	APIURL string
	// StreamURL is the NDJSON stream; derived with StreamURLFor when empty.
	StreamURL string
	// Token is the bot's credential.
	Token Token
	// HTTPClient, when set, carries the requests (its Timeout must be 0 for
	// the stream to stay open; redirects are never followed regardless).
	HTTPClient *http.Client
	// RequestTimeout bounds each POST; DefaultRequestTimeout when 0.
	RequestTimeout time.Duration
	// MaxResponseBytes bounds a POST answer; DefaultMaxResponseBytes when 0.
	MaxResponseBytes int64
	// MaxEventBytes bounds one stream line; DefaultMaxEventBytes when 0.
	MaxEventBytes int
	// StreamReadTimeout is the longest silence tolerated on the stream
	// before Next fails with ErrStreamSilent; DefaultStreamReadTimeout when 0.
	StreamReadTimeout time.Duration
	// UserAgent is sent with every request; DefaultUserAgent when empty.
	UserAgent string
}

// Client calls the FlipSight bot API. It is safe for concurrent use. The
// URLs are checked by NewClient, before the token is sent anywhere.
type Client struct {
	api, stream *url.URL
	token       Token
	http        *http.Client
	timeout     time.Duration
	maxResp     int64
	maxEvent    int
	readTimeout time.Duration
	userAgent   string
}

// NewClient validates cfg (token present, URLs acceptable, stream on the
// API's host) and returns a Client.
func NewClient(cfg Config) (*Client, error) {
	if cfg.Token.IsZero() {
		return nil, ErrNoToken
	}
	apiURL := cfg.APIURL
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	api, stream, err := StreamURLFor(apiURL, cfg.StreamURL)
	if err != nil {
		return nil, err
	}
	c := &Client{
		api: api, stream: stream, token: cfg.Token,
		timeout: cfg.RequestTimeout, maxResp: cfg.MaxResponseBytes, maxEvent: cfg.MaxEventBytes,
		readTimeout: cfg.StreamReadTimeout, userAgent: cfg.UserAgent,
	}
	if c.timeout <= 0 {
		c.timeout = DefaultRequestTimeout
	}
	if c.maxResp <= 0 {
		c.maxResp = DefaultMaxResponseBytes
	}
	if c.maxEvent <= 0 {
		c.maxEvent = DefaultMaxEventBytes
	}
	if c.readTimeout <= 0 {
		c.readTimeout = DefaultStreamReadTimeout
	}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	var base http.Client
	if cfg.HTTPClient != nil {
		base = *cfg.HTTPClient
	} else {
		base.Transport = defaultTransport()
	}
	// Never follow a redirect: it could carry the token to another scheme
	// or host.
	base.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.http = &base
	return c, nil
}

// defaultTransport speaks HTTP/1.1 on purpose: the stream then has a TCP
// connection of its own, so a connection that died silently under the
// stream (noticed by its read deadline) never holds the moves and polls
// too, as one multiplexed HTTP/2 connection would.
func defaultTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 15 * time.Second}).DialContext,
		ForceAttemptHTTP2:     false,
		MaxIdleConns:          8,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// APIURL returns the API address in use.
func (c *Client) APIURL() string { return c.api.String() }

// StreamURL returns the stream address in use.
func (c *Client) StreamURL() string { return c.stream.String() }

// Poll calls agent_poll; env may be nil.
func (c *Client) Poll(ctx context.Context, env *Environment) (*PollResponse, error) {
	var out PollResponse
	if err := c.call(ctx, ActionPoll, PollRequest{Action: ActionPoll, Environment: env}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Challenge calls agent_challenge; req.Action is filled in.
func (c *Client) Challenge(ctx context.Context, req ChallengeRequest) (*ChallengeResponse, error) {
	req.Action = ActionChallenge
	var out ChallengeResponse
	if err := c.call(ctx, ActionChallenge, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Accept calls agent_accept for matchID.
func (c *Client) Accept(ctx context.Context, matchID int64) (*MatchResponse, error) {
	var out MatchResponse
	if err := c.call(ctx, ActionAccept, AcceptRequest{Action: ActionAccept, MatchID: matchID}, &out); err != nil {
		return nil, fmt.Errorf("accept match %d: %w", matchID, err)
	}
	return &out, nil
}

// Reject calls agent_reject for matchID.
func (c *Client) Reject(ctx context.Context, matchID int64) (*MatchResponse, error) {
	var out MatchResponse
	if err := c.call(ctx, ActionReject, RejectRequest{Action: ActionReject, MatchID: matchID}, &out); err != nil {
		return nil, fmt.Errorf("reject match %d: %w", matchID, err)
	}
	return &out, nil
}

// Move calls agent_move; req.Action is filled in.
func (c *Client) Move(ctx context.Context, req MoveRequest) (*MatchResponse, error) {
	req.Action = ActionMove
	var out MatchResponse
	if err := c.call(ctx, ActionMove, req, &out); err != nil {
		return nil, fmt.Errorf("move %s in match %d leg %d revision %d: %w", req.Move, req.MatchID, req.Leg, req.Revision, err)
	}
	return &out, nil
}

// call POSTs body and decodes the answer into out.
func (c *Client) call(ctx context.Context, op string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("flipsight %s: encode request: %w", op, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.api.String(), bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("flipsight %s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", c.token.bearer())
	req.Header.Set("User-Agent", c.userAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("flipsight %s: %w", op, scrub(err))
	}
	defer resp.Body.Close()
	data, err := readLimited(resp.Body, c.maxResp)
	if err != nil {
		return fmt.Errorf("flipsight %s: read answer (HTTP %d): %w", op, resp.StatusCode, scrub(err))
	}
	return DecodeAnswer(op, resp.StatusCode, resp.Header, data, out)
}

// readLimited reads r to the end, failing with ErrResponseTooLarge beyond max.
func readLimited(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrResponseTooLarge, max)
	}
	return data, nil
}

// DecodeAnswer turns an HTTP answer of action op into out (a pointer to the
// action's response type) or an error: an *APIError for a non-2xx status or
// ok:false, a decode error for a 2xx body that is not the expected JSON,
// an error wrapping ErrBadObject for an answer whose values are out of
// range (a poll answer instead drops the bad bots and matches and lists
// them in Refused).
// It is exported for servers' tests and fuzzing; clients use Client.
func DecodeAnswer(op string, status int, header http.Header, body []byte, out any) error {
	if status < 200 || status > 299 {
		return newAPIError(op, status, header, body)
	}
	var head struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		if page := pageStart(body); page != "" {
			return &PageError{Op: op, Status: status, Page: page, Err: err}
		}
		return fmt.Errorf("flipsight %s: decode answer: %w", op, err)
	}
	if head.OK == nil || !*head.OK {
		return newAPIError(op, status, header, body)
	}
	if err := unmarshalTolerant(body, out); err != nil {
		return fmt.Errorf("flipsight %s: decode answer: %w", op, err)
	}
	if c, ok := out.(checker); ok {
		if err := c.check(); err != nil {
			return fmt.Errorf("flipsight %s: %w", op, err)
		}
	}
	return nil
}

func newAPIError(op string, status int, header http.Header, body []byte) *APIError {
	e := &APIError{Op: op, Status: status}
	var er ErrorResponse
	if json.Unmarshal(body, &er) == nil {
		e.Code = ErrorCode(truncate(er.Error, 200))
		e.ServerNowMS = er.ServerNowMS
	} else {
		e.Page = pageStart(body)
	}
	if header != nil {
		if ra := header.Get("Retry-After"); ra != "" {
			if s, err := strconv.Atoi(strings.TrimSpace(ra)); err == nil && s >= 0 && s <= 3600 {
				e.RetryAfter = time.Duration(s) * time.Second
			}
		}
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

// scrub keeps transport errors but makes sure no URL query or user info
// reaches the message (the client never puts the token there; this is a
// second fence).
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		u, perr := url.Parse(ue.URL)
		if perr == nil {
			u.User = nil
			u.RawQuery = ""
			return &url.Error{Op: ue.Op, URL: u.String(), Err: ue.Err}
		}
		return &url.Error{Op: ue.Op, URL: "", Err: ue.Err}
	}
	return err
}
