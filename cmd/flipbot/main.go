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
//	flipbot help [COMMAND], -h, --help      the commands, FS_BOT_TOKEN, the exit codes and the flags
//	flipbot version, --version              the module version and VCS revision
//
// Built with the gokrazy build tag, flipbot starts in appliance mode.
//
// Files: main.go (the dispatch), help.go (help and version), bot.go (play:
// the engine from the flags, the bot, its game records), cpu.go (the CPU
// name reported: cpu_darwin.go, cpu_windows.go and cpu_other.go ask the
// OS), challenge.go, games.go, analyse.go (with the CPU time it used:
// cputime_unix.go, cputime_other.go), preview.go (display-preview),
// appliance.go, mode_default.go and mode_gokrazy.go (the mode plain
// `flipbot` starts in, by build tag).
//
// It is thin: it may import config (the flags), flipsight, bot and
// bot/record, bot/analysis (games analyse), engines, engines/external, engines/eval and engines/search
// (the engine the flags ask for), engines/othello, engines/proc (one
// stderr budget for all the engines), gpio (the preview's
// rendering) and appliance. Its tests also play against the arena.
package main

import (
	"fmt"
	"io"
	"os"

	"flipbot.dev/flipbot/internal/version"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

// run dispatches to a subcommand and returns the process exit code.
func run(args []string) int {
	return dispatch(args, os.Getenv, os.Stdout, os.Stderr)
}

// dispatch is run with its outside world injectable (tests) for the
// commands that print only: help and version.
func dispatch(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
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
		case "help":
			return help(args[1:], getenv, stdout, stderr)
		case "version", "-version", "--version":
			if len(args) > 1 {
				fmt.Fprintf(stderr, "flipbot %s: unexpected argument %q\n", args[0], args[1])
				return exitUsage
			}
			fmt.Fprint(stdout, version.Details("flipbot"))
			return exitOK
		}
	}
	if applianceByDefault {
		return runAppliance(args)
	}
	return runBot(args, getenv, stdout, stderr)
}
