package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"flipbot.dev/flipbot/config"
)

// helpText is what `flipbot help` and `flipbot -h` print before the
// connector's flags.
const helpText = `usage:
  flipbot [flags]                  keep the bot online on FlipSight (the official connector's flags)
  flipbot COMMAND [arguments]

Commands:
  challenge NAME|ID [--mode MODE]  challenge the bot NAME (or with id ID) to a match in MODE
  games list|export|show|analyse   the game records flipbot keeps (--games-dir), their analysis
  appliance [flags]                run as the Raspberry Pi appliance (on a PC too, with --dir)
  display-preview --out FILE.png   render an appliance screen to a PNG file
  help [COMMAND]                   this text, or COMMAND's arguments and flags (as COMMAND -h)
  version                          the module version and VCS revision (also --version)

Environment:
  ` + config.TokenEnv + `                 the bot token (never a flag or a file); play and challenge need it
  ` + config.EngineEnvEnv + `           comma-separated names of further variables of ours that external
                               engines get; by default they get PATH, HOME, the locale, TZ, the
                               temporary directory and Python's and OpenMP's settings only, and
                               never ` + config.TokenEnv + ` or a name that looks secret (TOKEN, KEY, PASSWORD…)
  ` + config.DataHomeEnv + `, ` + config.HomeEnv + `          where the game records are kept by default

Exit codes (as the official connector's):
  0  a normal end (and -h)
  1  any other failure
  2  ` + config.TokenEnv + ` missing or rejected, or bad flags or arguments
  3  --max-runtime reached

`

// help runs `flipbot help [COMMAND]`: the commands, the environment, the
// exit codes and the connector's flags on stdout; with a command, that
// command's -h.
func help(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "challenge", "games", "display-preview", "appliance":
			return dispatch([]string{args[0], "-h"}, getenv, stdout, stderr)
		case "help":
		case "version":
			fmt.Fprintln(stdout, "usage: flipbot version: print the module version and VCS revision")
			return exitOK
		default:
			fmt.Fprintf(stderr, "flipbot help: unknown command %q\n", args[0])
			return exitUsage
		}
	}
	var flags bytes.Buffer
	_, _ = config.ParseBot([]string{"-h"}, getenv, &flags)
	writeHelp(stdout, flags.String())
	return exitOK
}

// writeHelp writes helpText and then flags, the flag package's usage of
// the connector without its "Usage of flipbot:" line.
func writeHelp(w io.Writer, flags string) {
	if first, rest, ok := strings.Cut(flags, "\n"); ok && strings.HasPrefix(first, "Usage of") {
		flags = rest
	}
	fmt.Fprint(w, helpText+"Flags of flipbot (play):\n"+flags)
}
