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
//	GET  /                              a live web page (bots, boards, results, the built-in levels)
//	GET  /arena/matches/{id}            an ended match's replay (?leg=L&ply=N; human rooms ?round=R)
//	GET  /arena/state.json              the page's data as JSON
//	POST /arena/admin/*                 test hooks: loopback clients, own Host, same origin, JSON only
//
// All timing goes through an injectable clock (internal/clock): with its
// fake (internal/clock/clocktest) tests advance time explicitly and call
// [Server.Tick], so clocks, timeouts, expiry and aborts are deterministic.
//
// One mutex guards the whole state (see [Server]); built-in engines think
// outside it and submit their moves through the same path as HTTP clients.
//
// Files:
//
//   - server.go: [Server], [New], the bots, [Server.Handler], [Server.Run]
//     and [Server.Tick].
//   - config.go: [Config], [BotConfig], the defaults, the command line's
//     forms of bots ([ParseBotFlag], [ParseBuiltinFlag]).
//   - api.go: the five agent_* actions; stream.go: the event stream;
//     wire.go: the state as flipsight's wire types.
//   - match.go: matches and legs, moves, clocks, timeouts and results;
//     automatch.go: matches offered to idle bots (auto-match); human.go:
//     human matches and their rounds.
//   - builtin.go, level.go: the built-in bots and their levels ([Player],
//     [Engines], [Levels]); remote.go: [PlayOverAPI], a minimal connector for demos
//     and tests.
//   - rating.go: every bot's Glicko-2 rating ([InitialRating]), updated
//     when a ranked bot-vs-bot match finishes, and reported in
//     agent_poll's bot.rating and the match's rating_before/after.
//   - tournament.go: [RunTournament] and the Elo difference
//     ([EloInterval]).
//   - admin.go: the test hooks (/arena/admin/*: [Server.Challenge],
//     [Server.StartMatch], [Server.Result]).
//   - page.go, web/page.html: the live page and its JSON
//     ([Server.Snapshot]): boards drawn by internal/boardview (the
//     appliance's replay draws its boards with it too), coordinates and
//     the last move on each, a clock red only under [ShortClock].
//   - results.go, web/replay.html: the last [KeptResults] ended matches,
//     kept for the page after the API forgets them, and their replays
//     (board, move list numbered by plies, both clocks at every position).
//
// It may import flipsight (the wire types it serves), arena/glicko (the
// rating system), engines and engines/othello (the rules it referees
// with), engines/search (the built-in engine of its house bots) and
// internal/boardview (the boards its page draws, as the appliance's
// replay does); nothing of bot, appliance or cmd.
// Its tests also run external engines (engines/jsonline, engines/proc).
package arena
