// Package flipsight is the FlipSight bot API (othelloclub.com) seen from Go:
// the wire types of every request, response and stream event, the error
// strings of the service, and a client for the JSON POST API and the NDJSON
// event stream.
//
// The wire types follow the service's documentation
// (../shared/spec/flipsight-bot-api.ja.txt beside this repository, digested in README.md there)
// field by field; their json tags are the service's names. They are used both
// to decode answers (the connector) and to encode them (the local arena
// server), so optional fields carry omitempty and nullable fields are
// pointers, which encode as JSON null when nil. Decoding is tolerant where
// it costs nothing: integral floats fill integer fields, and the few string
// fields the bot does not act on (Text) take numbers too.
//
// The token is a Token: every printed form of it is "[redacted]"; the
// Client reads it to fill the Authorization header, and Reveal gives it to
// the places that must keep it (the appliance's token file, a card
// image). NewClient checks the addresses before anything is sent: HTTPS,
// or plain HTTP for loopback hosts only, and the stream on the API's
// host. Failures the service answers are *APIError values; IsAuth,
// IsStale, IsIllegal, IsConflict, IsRateLimited and IsRetryable classify
// them, and IsNetwork says that no answer came at all (errors.go; the one
// rule for "no network").
//
// Every value from the server is checked before a caller sees it (check.go):
// ids, colours, counts, clocks and times in their ranges, board_size that of
// the mode and every board board_size² cells, every string within a limit
// (names 64 characters). A poll answer drops a bad bot or match and names it
// in PollResponse.Refused (one error each, wrapping ErrBadObject, naming the
// field and the figures but never echoing the text); a bad stream event is
// an ErrBadEvent; any other bad answer is an error. Nothing downstream
// allocates from an unchecked number.
//
// The package holds no game logic: squares stay integers (or the text the
// server sent), and legality, clocks and strategy live in engines/othello and
// bot/.
//
// Files:
//
//   - request.go, response.go: the actions' requests and answers; bot.go,
//     match.go, move.go, event.go: the objects in them; text.go,
//     numbers.go: the tolerant decoding.
//   - check.go: the checks of every value from the server.
//   - client.go: [Client], the POST API; stream.go: [Stream], the event
//     stream.
//   - errors.go: the service's error codes, [APIError] and its
//     classification.
//   - token.go: [Token]; url.go: the default addresses and their checks.
//
// It imports the standard library only, nothing of the module: every
// other part of flipbot may import it.
package flipsight
