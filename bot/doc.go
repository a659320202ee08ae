// Package bot is the player: it keeps a bot online on FlipSight through a
// flipsight.Client and plays its matches with an engine.
//
// Concepts, in the order the spec gives them:
//
//   - Sync. The event stream is kept open (reconnected with a 1 s → 30 s
//     backoff with jitter that never goes below 1 s, reset only by a stream
//     that stayed up 2 s; a connection that failed with no HTTP answer is
//     tried again as soon as a poll gets through, once an outage; with a
//     read deadline so that a silent dead stream is noticed); agent_poll runs on every match event and every 10 s while
//     the stream is up, and every 1 s in a match / 5 s idle without it
//     (failed reconnections never push a poll back). No poll, whatever asks
//     for it, comes within a second of the last. Polls back off after
//     failures and honour Retry-After.
//   - Matches. Pending matches where the bot is bot_b, and pending human
//     matches, are accepted up to Options.MaxMatches (a pair and a human
//     match count 1 each); the slot is reserved before agent_accept is sent.
//     Matches in a mode the engine cannot play are rejected (at most
//     maxRejects calls at once). Running matches the bot did not accept
//     (found after a restart, or its own challenges) are played within
//     MaxMatches and runningAllowance, however many the server lists. A
//     human room's rounds (one id, a new round_no each) are all played.
//   - Moves. One move per (match, leg, revision); a search whose leg
//     changed is dropped; the clock is recomputed from the server's figures
//     less the time since they arrived. An --engine engine
//     (Engines.SpecTimed) is asked on every own turn, forced ones in
//     the background, with the spec's remaining_ms and budget_ms computed
//     when its request is written, and awaited until the clock is down to
//     the spec's margin (it keeps budget_ms itself). The engines the bot
//     times (built-in, NBoard, Edax, Egaroucid) get the one clock plan's
//     budget (engines/timeplan, fed the [OverheadMeter]'s estimate), which
//     reserves half again the measured per-move overhead for every own move
//     left; the state's delivery (a poll's delay) is the
//     clock's, not overhead. An illegal, missing or late answer, and the
//     move of the plan's panic mode, is a quick move: Engines.Quick's search
//     (the built-in engine) for the plan's quick think, one ply without
//     it; an engine still starting (engines.ErrNotReady)
//     is kept, a failed one replaced (engines.Session.Replace: the other
//     leg keeps its engine and its turn). A match is a scope: its engines
//     are one engines.Session, opened from Engines.Provider when the match
//     is accepted or picked up and closed exactly once when it ends (or
//     was never accepted, or Run ends), as lichess-bot's
//     `with create_engine(...) as engine:` per game; which program plays
//     which leg, its start-up and its replacement are the session's
//     business. The wire request (othello.EngineRequest) is built only for
//     engines that read it (Engines.Wire, SpecTimed). agent_move is
//     retried only after a lost connection, 503 or 429. All legs think at once. With Options.Ponder, an engine that
//     can (engines.Ponderer) thinks on the opponent's time after each own
//     move until the leg's opponent replies.
//   - Stop. Cancelling Run's context accepts nothing new and plays the
//     running matches to their end (bounded by Options.Drain; a human room
//     starts no new round), then finishes the moves in flight (bounded by
//     Options.MoveDrain), waits for the records of the matches that ended,
//     closes the engines, and returns. Bot.Stop (a second signal) ends the
//     drain at once.
//
// One goroutine (Run's loop) owns the bot's state; the stream reader, the
// poller, the accepts and the move tasks talk to it through channels. The
// observable state is a Status snapshot, read with Bot.Status or pushed to
// Options.OnStatus.
//
// Files, by concept:
//
//   - bot.go: [Bot], [New], [Bot.Run] and the loop that owns the state;
//     the warnings a server can cause at will logged in aggregate, per
//     kind and [ServerWarnInterval] (internal/logagg).
//   - options.go: [Options], [Timing], [Engines] (what plays: the
//     provider of each match's session), [Recorder].
//   - sync.go: the stream and the polls; recent.go: what was seen lately.
//   - match.go: matches: accepting, tracking, finishing, recording.
//   - leg.go: moves: asking the engine, sending, retrying.
//   - ponder.go: pondering after an own move (Options.Ponder, an engine
//     that is an engines.Ponderer), cancelled when the opponent replies.
//   - engines.go: a match's engines: its session, opened and closed by the
//     loop, and the legs that get no grace past their time.
//   - plan.go, clock.go: the move's plan from the one clock planner
//     (engines/timeplan), the [OverheadMeter] that feeds it, [Remaining];
//     every time the bot reads and every timer it starts is on
//     Options.Clock (internal/clock; clock.go says what alone is on the
//     system clock); fallback.go: the quick move of a fallback.
//   - status.go: [Status], the observable state.
//   - tally.go: the moves sent by source and the fallbacks' causes
//     ([MoveCounts], CauseTimeout…); health.go: the engine taken as
//     broken after failed moves in a row, and the probe that clears it.
//
// It may import flipsight (the API), engines, engines/othello and
// engines/timeplan (any engine, the rules for its own checks, the clock
// planner) and bot/record (the games it
// keeps); never a particular engine, nor arena, appliance or cmd. Its
// tests play against the arena and its fault front (arena,
// arena/arenatest: an exception to arrows down, test-only, recorded in
// internal/archtest) and use engines/jsonline, engines/search and
// engines/proc (engines flooding the log alongside a hostile server).
package bot
