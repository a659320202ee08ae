package flipsight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
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
