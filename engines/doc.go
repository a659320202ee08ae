// Package engines defines how the bot talks to an engine of any kind — the
// built-in one and the adapters for external programs — and holds them in
// its sub-packages.
//
// Every engine answers a [Request] with a [Result] through the [Engine]
// interface (engine.go); the bot does not know which kind it is talking
// to.
//
// A match is a scope (session.go): a [Provider] opens one [Session] per
// accepted match and the player closes it exactly once when the match
// ends; which program plays which leg, its start-up ([Starter]) and its
// replacement after a failure are the session's business. [Shared] (the
// built-in engine), [PerMatch] (a JSON-line process per match) and
// [PerLeg] (a process per leg: NBoard, Edax, Egaroucid) are the generic
// providers; engines/route composes providers by mode and
// engines/egaroucid's Pool is the appliance's std provider. pool.go holds
// the house's one warm pool of started programs ([Pool]), bounded, used by
// PerLeg on a PC and by Egaroucid's Pool on the device.
//
// The sub-packages:
//
//	engines/othello        the rules of all five modes on bitboards, notation, the API's engine request, perft
//	engines/search         the built-in engine (PVS, exact solver, Multi-ProbCut)
//	engines/eval           its evaluations; engines/eval/train makes their weights
//	engines/route          a provider per game mode, over any providers
//	engines/jsonline       the adapter for the spec's JSON-line engines (--engine)
//	engines/nboard         the adapter for NBoard engines (--nboard)
//	engines/edax           Edax, as an NBoard engine (--edax)
//	engines/egaroucid      Egaroucid for Console (--egaroucid) and its Pool, the std provider of the device
//	engines/external       the adapter that the connector's flags ask for
//	engines/proc           one external engine's process and its tree
//	engines/sizing         memory and threads of the external engines for the machine
//	engines/ggf            GGF game records
//	engines/internal/adapt what the adapters share; engines/internal/enginetest their test helpers
//	engines/egaroucid/egaroucidtest  a fake Egaroucid for tests
//
// It may import engines/othello only (a request is a position of the
// rules). Nothing under engines imports flipsight, config, gpio, bot,
// arena, appliance or cmd: they import the engines (the tests of
// engines/external and engines/proc are the exceptions; their package
// comments say why).
package engines
