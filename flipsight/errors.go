package flipsight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode"

	"flipbot.dev/flipbot/internal/text"
)

// ErrorCode is the "error" string of a failed call, as the service spells it.
type ErrorCode string

// The service's error strings, with the HTTP status that carries them.
const (
	// 400
	CodeJSONObjectRequired ErrorCode = "JSON object required"
	CodeUnknownAction      ErrorCode = "unknown action"
	// 401: stop and check the token.
	CodeInvalidCredential ErrorCode = "invalid bot credential"
	// 403
	CodeAccessDenied ErrorCode = "access denied"
	CodeInvalidCSRF  ErrorCode = "invalid csrf"
	// 405
	CodePOSTRequired ErrorCode = "POST required"
	// 409: re-poll and check turn, revision and legal moves.
	CodeStaleRevision         ErrorCode = "stale_revision"
	CodeNotYourTurn           ErrorCode = "not_your_turn"
	CodeIllegalMove           ErrorCode = "illegal_move"
	CodeLegFinished           ErrorCode = "leg_finished"
	CodeMatchNotRunning       ErrorCode = "match not running"
	CodeMatchTimedOut         ErrorCode = "match timed out"
	CodeStaleRoomRevision     ErrorCode = "stale room revision"
	CodeInvalidMoveCoordinate ErrorCode = "invalid move coordinate"
	CodeMoveOutsideBoard      ErrorCode = "move outside board"
	CodeUnsupportedGameMode   ErrorCode = "unsupported game mode"
	CodeBothBotsConnected     ErrorCode = "both bots must be connected"
	CodeBotHasActiveMatch     ErrorCode = "bot already has an active match"
	CodeBotBusy               ErrorCode = "bot busy"
	CodeChallengeAnswered     ErrorCode = "challenge expired or answered"
	CodeSiteBotVariantsFull   ErrorCode = "site bot variant matches are full"
	CodeTargetBotNotFound     ErrorCode = "target bot not found"
	// 413
	CodeRequestTooLarge ErrorCode = "request too large"
	// 429 (bot-stream)
	CodeTooManyStreams ErrorCode = "too many streams"
	// 503: back off and retry.
	CodeStorageUnavailable ErrorCode = "bot match storage unavailable"
)

// Errors of the client itself, before or beside the service's answers.
var (
	// ErrNoToken is returned when a call is attempted without a token.
	ErrNoToken = errors.New("flipsight: no bot token (set FS_BOT_TOKEN)")
	// ErrRefusedURL is returned for an API or stream URL the client will not
	// send the token to (not HTTPS and not loopback, or the stream on
	// another host than the API).
	ErrRefusedURL = errors.New("flipsight: refused URL")
	// ErrResponseTooLarge is returned when an answer or a stream line
	// exceeds the client's size limit.
	ErrResponseTooLarge = errors.New("flipsight: response too large")
	// ErrStreamSilent is returned by the stream reader when no line arrived
	// within its read deadline (pings come every 10 s).
	ErrStreamSilent = errors.New("flipsight: stream silent past its read deadline")
)

// StatusFor returns the HTTP status the service uses for code, and 400 for
// an unknown code. Servers (the local arena) use it to answer like the
// service.
func StatusFor(code ErrorCode) int {
	switch code {
	case CodeInvalidCredential:
		return http.StatusUnauthorized
	case CodeAccessDenied, CodeInvalidCSRF:
		return http.StatusForbidden
	case CodePOSTRequired:
		return http.StatusMethodNotAllowed
	case CodeStaleRevision, CodeNotYourTurn, CodeIllegalMove, CodeLegFinished,
		CodeMatchNotRunning, CodeMatchTimedOut, CodeStaleRoomRevision,
		CodeInvalidMoveCoordinate, CodeMoveOutsideBoard, CodeUnsupportedGameMode,
		CodeBothBotsConnected, CodeBotHasActiveMatch, CodeBotBusy,
		CodeChallengeAnswered, CodeSiteBotVariantsFull, CodeTargetBotNotFound:
		return http.StatusConflict
	case CodeRequestTooLarge:
		return http.StatusRequestEntityTooLarge
	case CodeTooManyStreams:
		return http.StatusTooManyRequests
	case CodeStorageUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

// APIError is a call the service answered with a non-2xx status or with
// ok:false. Code is the service's error string (possibly empty or unknown
// when the body was not the service's JSON). It never contains the token.
type APIError struct {
	// Op is the action ("agent_move") or "bot-stream".
	Op string
	// Status is the HTTP status code.
	Status int
	// Code is the "error" string of the body.
	Code ErrorCode
	// ServerNowMS is the body's server_now_ms, 0 when absent.
	ServerNowMS int64
	// RetryAfter is the Retry-After header, 0 when absent.
	RetryAfter time.Duration
	// Page is the start of a body that was not JSON (a web page or a
	// proxy's text), cleaned for a log line; empty when the body was JSON
	// or empty.
	Page string
}

// Error describes the failure: operation, status and error string.
func (e *APIError) Error() string {
	code := string(e.Code)
	if code == "" {
		code = http.StatusText(e.Status)
	}
	return fmt.Sprintf("flipsight %s: HTTP %d: %q", e.Op, e.Status, code)
}

// AsAPIError returns the *APIError in err's chain, or nil.
func AsAPIError(err error) *APIError {
	var e *APIError
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// PageError is a 2xx answer whose body is not JSON at all (a web page,
// say): what a URL that names a site's page rather than the bot API gets.
type PageError struct {
	// Op is the action.
	Op string
	// Status is the HTTP status code.
	Status int
	// Page is the body's start, cleaned for a log line.
	Page string
	// Err is the JSON decoder's error.
	Err error
}

// Error says what came instead of the API's JSON.
func (e *PageError) Error() string {
	return fmt.Sprintf("flipsight %s: decode answer: HTTP %d with a body that is not JSON (%q): %v", e.Op, e.Status, e.Page, e.Err)
}

// Unwrap returns the decoder's error.
func (e *PageError) Unwrap() error { return e.Err }

// LooksMisdirected reports whether err is an answer no bot API gives, so
// that the API URL itself (--api) is probably wrong, and describes what
// came instead: HTTP 404, which the service never answers (its error table
// has 400, 401, 403, 405, 409, 413, 429 and 503), or a body that is not
// JSON with a 2xx or 4xx status (a site's page). A 5xx or 429 page is a
// proxy's passing trouble, not a wrong URL, and is not counted.
func LooksMisdirected(err error) (what string, ok bool) {
	var pe *PageError
	if errors.As(err, &pe) {
		return fmt.Sprintf("HTTP %d with a page that is not JSON (%q)", pe.Status, pe.Page), true
	}
	e := AsAPIError(err)
	switch {
	case e == nil:
		return "", false
	case e.Status == http.StatusNotFound:
		if e.Page != "" {
			return fmt.Sprintf("HTTP 404 (%q)", e.Page), true
		}
		return "HTTP 404", true
	case e.Page != "" && e.Status < 500 && e.Status != http.StatusTooManyRequests:
		return fmt.Sprintf("HTTP %d with a page that is not JSON (%q)", e.Status, e.Page), true
	}
	return "", false
}

// pageStart is the start of a body that is not JSON, cleaned for a log
// line: control characters and runs of white space become one space, at
// most 60 characters; "" when body is empty or starts like JSON.
func pageStart(body []byte) string {
	s := strings.TrimSpace(string(body[:min(len(body), 512)]))
	if s == "" || s[0] == '{' || s[0] == '[' {
		return ""
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return text.Elide(b.String(), 60)
}

// IsAuth reports whether err is a rejected token (401): the bot must stop.
func IsAuth(err error) bool {
	e := AsAPIError(err)
	return e != nil && (e.Status == http.StatusUnauthorized || e.Code == CodeInvalidCredential)
}

// IsConflict reports whether err is a 409: re-poll and check the state.
func IsConflict(err error) bool {
	e := AsAPIError(err)
	return e != nil && e.Status == http.StatusConflict
}

// IsStale reports whether err says the move was computed for a state that
// is no longer current (stale revision, not my turn, leg or match over): the
// move must be dropped, never resent.
func IsStale(err error) bool {
	e := AsAPIError(err)
	if e == nil {
		return false
	}
	switch e.Code {
	case CodeStaleRevision, CodeStaleRoomRevision, CodeNotYourTurn, CodeLegFinished,
		CodeMatchNotRunning, CodeMatchTimedOut:
		return true
	}
	return false
}

// IsIllegal reports whether err says the move itself was refused (illegal,
// bad coordinate, outside the board): never resend that move.
func IsIllegal(err error) bool {
	e := AsAPIError(err)
	if e == nil {
		return false
	}
	switch e.Code {
	case CodeIllegalMove, CodeInvalidMoveCoordinate, CodeMoveOutsideBoard:
		return true
	}
	return false
}

// IsRateLimited reports whether err is a 429 (too many streams).
func IsRateLimited(err error) bool {
	e := AsAPIError(err)
	return e != nil && e.Status == http.StatusTooManyRequests
}

// IsNetwork reports whether err is a failure to reach the service at all:
// no answer came (DNS, connect, TLS, a timeout, the connection cut in the
// middle of an answer). An answer of the service (an *APIError, 401
// included), an answer the client refused (ErrResponseTooLarge,
// ErrBadEvent, ErrStreamSilent), a request it would not send
// (ErrRefusedURL, ErrNoToken) and a cancelled call are not: this is the
// one rule by which the bot's status and the appliance say "no network".
func IsNetwork(err error) bool {
	if err == nil || AsAPIError(err) != nil {
		return false
	}
	for _, notNetwork := range []error{context.Canceled, ErrRefusedURL, ErrNoToken,
		ErrResponseTooLarge, ErrBadEvent, ErrStreamSilent} {
		if errors.Is(err, notNetwork) {
			return false
		}
	}
	// *net.OpError, *net.DNSError and the *url.Error of a failed request
	// are net.Errors.
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
}

// IsRetryable reports whether the same request may succeed later after a
// back-off: 429, 503 and other 5xx, and failures below HTTP (connection
// refused, reset, timeouts), which are not APIErrors. A 4xx other than 429
// is not retryable; neither are context cancellation and size-limit errors.
func IsRetryable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrResponseTooLarge) || errors.Is(err, ErrRefusedURL) ||
		errors.Is(err, ErrNoToken) || errors.Is(err, context.Canceled) {
		return false
	}
	e := AsAPIError(err)
	if e == nil {
		return true
	}
	return e.Status == http.StatusTooManyRequests || e.Status >= 500
}
