// Package timeplan decides how long a move may think, for every engine
// that flipbot times itself: the built-in engine, NBoard engines, Edax,
// Egaroucid, and `flipengine engine` answering the spec's protocol. The
// bot, the adapters and the engine call [Plan]; none keeps a formula of its
// own (docs/decisions/0002-clock-plan.md).
//
// Three durations have one meaning each:
//
//   - the budget (engines.Request.Budget, [Move].Limit): the most the move
//     may take, the caller's wait included; past it the bot plays its quick
//     move. The planner never gives more than the spec's bound,
//     min(cap, remaining − 0.75 s) ([engines.SpecBudget]).
//   - the think ([Move].Target): the time the engine aims to search; its
//     own stopping (an iteration not started, a stop sent) lands it there
//     on average, some moves under it and some over, never past the
//     budget.
//   - the spec's budget_ms of an --engine request: the spec's formula, as
//     it is ([engines.SpecBudget]); this package never shapes it.
//
// The rule: the mover's own moves left ([Count]) are each reserved half
// again the measured per-move overhead, and the spec's 0.75 s once
// ([Reserve]); the rest (the spare time) is shared among the moves that
// still need a search: the own moves before the endgame solve (20 empties
// on 8×8, 18 on 10×10) plus [SolveShares] for the solve itself. A move
// aims at its share and may take twice it, never more than three quarters
// of the spare time: since each move keeps part of the spare time and the
// reserve holds every later move's overhead, the clock cannot run out
// while the overhead is not underestimated by a third, however often the
// engine fails to answer. A plan with too little to think (under
// [MinThink]) is the panic mode: Limit 0, no engine asked, and a quick
// move: a search in the bot's process (the built-in engine) for the
// [Move].Quick think, a few milliseconds that the clock affords above
// [QuickFloor] and every own move's overhead, or one ply when it affords
// none. A fallback after an engine failed thinks the same way, at most
// [MinThink].
//
// Files: plan.go ([Plan], [Count], [Reserve]).
//
// It may import engines and engines/othello.
package timeplan
