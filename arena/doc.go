// Package arena is a local server that speaks the FlipSight bot API
// (othelloclub.com) like the real service, for testing bot clients end to
// end, for trying an engine before going online, and for engine tournaments
// in FlipSight's exact format.
//
// A [Server] holds registered bots (each with its own Bearer token and
// supported games), built-in bots played by the server with an
// [engines.Engine], and matches: bot-vs-bot pairs of legs from a random
// 12-disc start with colours swapped, and one-leg human matches. It serves
//
//	POST /flipsight/bot_match_api.php   the five agent_* actions
//	GET  /flipsight_api/bot-stream      the NDJSON event stream
//	GET  /                              a live web page (bots, boards, results)
//	GET  /arena/state.json              the page's data as JSON
//	POST /arena/admin/*                 test hooks: loopback clients, own Host, same origin, JSON only
//
// All timing goes through an injectable [Clock]: with a [ManualClock] tests
// advance time explicitly and call [Server.Tick], so clocks, timeouts,
// expiry and aborts are deterministic.
//
// One mutex guards the whole state (see [Server]); built-in engines think
// outside it and submit their moves through the same path as HTTP clients.
package arena
