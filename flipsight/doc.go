// Package flipsight is the FlipSight bot API (othelloclub.com) seen from Go:
// the wire types of every request, response and stream event, the error
// strings of the service, and a client for the JSON POST API and the NDJSON
// event stream.
//
// The wire types follow the service's documentation
// (/work/shared/spec/flipsight-bot-api.ja.txt, digested in README.md there)
// field by field; their json tags are the service's names. They are used both
// to decode answers (the connector) and to encode them (the local arena
// server), so optional fields carry omitempty and nullable fields are
// pointers, which encode as JSON null when nil.
//
// The package holds no game logic: squares stay integers (or the text the
// server sent), and legality, clocks and strategy live in engines/othello and
// bot/.
package flipsight
