// Package bot is the player: it keeps a bot online on FlipSight through a
// flipsight.Client and plays its matches with an engine.
//
// Concepts, in the order the spec gives them:
//
//   - Sync. The event stream is kept open (reconnected with a 1 s → 30 s
//     backoff with jitter that never goes below 1 s, with a read deadline so that a silent dead stream
//     is noticed); agent_poll runs on every match event and every 10 s while
//     the stream is up, and every 1 s in a match / 5 s idle without it;
//     periodic polls never come more than once a second. A bot-vs-bot match
//     event carries the whole match and is played on at once; a human
//     match's event carries only its id, so its poll runs at once (the bot's
//     clock may be running). Polls back off after failures and honour
//     Retry-After.
//   - Matches. Pending matches where the bot is bot_b, and pending human
//     matches, are accepted up to Options.MaxMatches (a pair and a human
//     match count 1 each); the slot is reserved before agent_accept is sent.
//     Matches in a mode the engine cannot play are rejected. Running matches
//     found by a poll are played on, so a restart loses nothing.
//   - Moves. One move per (match, leg, revision); a search whose leg
//     changed is dropped; the clock is recomputed from the server's figures
//     less the time since they arrived; the budget (the longest the bot
//     waits for the engine, sent as budget_ms) is the spec's min(cap,
//     remaining − 750 ms), cut by a plan (see Plan) that reserves half
//     again the measured per-move overhead for every own move left and
//     gives one move at most twice its even share of the rest; when the
//     reserve is all the clock has, the bot plays its quick move at once
//     (panic mode). An illegal, missing or late answer is replaced by a
//     quick fallback move. All legs think at once.
//   - Stop. Cancelling Run's context accepts nothing new, finishes the moves
//     in flight (bounded by Options.DrainTimeout), closes the engines, and
//     returns.
//
// One goroutine (Run's loop) owns the bot's state; the stream reader, the
// poller, the accepts and the move tasks talk to it through channels. The
// observable state is a Status snapshot, read with Bot.Status or pushed to
// Options.OnStatus.
package bot
