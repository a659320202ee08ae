// Command flipbot keeps a bot online on FlipSight: a drop-in replacement for
// the official Python connector (tools/bot_match_client.py) with the same
// flags, exit codes and engine protocols, and a built-in engine by default.
//
// Subcommands:
//
//	flipbot [flags]                         play (the official connector's flags)
//	flipbot challenge NAME|ID [--mode MODE] send agent_challenge (checked first; retried while
//	                                        FlipSight's site bot variant matches are full)
//	flipbot games list|export|show|analyse  the kept game records (--games-dir), their analysis
//	flipbot display-preview ...             render an appliance screen to PNG
//	flipbot appliance [flags]               run as the Raspberry Pi appliance
//
// Built with the gokrazy build tag, flipbot starts in appliance mode.
//
// Files: main.go (the dispatch), bot.go (play: the engine from the flags,
// the bot, its game records), challenge.go, games.go, preview.go
// (display-preview), appliance.go, mode_default.go and mode_gokrazy.go
// (the mode plain `flipbot` starts in, by build tag).
//
// It is thin: it may import config (the flags), flipsight, bot and
// bot/record, bot/analysis (games analyse), engines, engines/external, engines/eval and engines/search
// (the engine the flags ask for), engines/othello, engines/proc (one
// stderr budget for all the engines), gpio (the preview's
// rendering) and appliance. Its tests also play against the arena.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "challenge":
			return runChallenge(args[1:])
		case "games":
			return runGames(args[1:])
		case "display-preview":
			return runDisplayPreview(args[1:])
		case "appliance":
			return runAppliance(args[1:])
		}
	}
	if applianceByDefault {
		return runAppliance(args)
	}
	return runBot(args)
}
