package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"unicode"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/atomicfile"
)

// gamesUsage is the usage of `flipbot games`.
const gamesUsage = `usage:
  flipbot games list   [--games-dir DIR] [--mode MODE] [--result win|loss|draw|aborted] [--opponent NAME]
  flipbot games export [--games-dir DIR] [--format jsonl|ggf] [--out FILE] [--mode …] [--result …] [--opponent …] [ID …]
  flipbot games show   [--games-dir DIR] ID|PREFIX
  flipbot games analyse [--games-dir DIR] [--redo] [--threads N] [--hash-mb MB] [--depth D] [--exact-empties E]
                        [--mode …] [--result …] [--opponent …] [ID …]

The game records flipbot keeps (--games-dir; by default where flipbot keeps
them). list prints the games newest first (discs: black's first, the bot's colour named), with
the bot's mean loss per move and worst move of the analysed games; export
writes them oldest first, to stdout or to FILE (replaced whole), as JSON
lines (--format jsonl, the default: every mode) or GGF (--format ggf: std,
anti, grand and octagon, as GGS's game types 8, 8a, 10 and 88; GGF has no
form for classic reversi, so reversi games are left out, and naming one is
an error); show prints one game's moves, result and final position (with
each move's loss and the best move once analysed), the game named by its
id or by the start of one ("1234-0": leg 0 of match 1234) that no other id
shares. analyse scores
every move of the games named, or of every game that passes the filters
and has no analysis yet (newest first; --redo: analysed ones too), with
the built-in engine, keeps each analysis beside its game (the appliance's
pages show it), and prints one line per game with the time it took (wall
clock and the process's CPU) and a summary per mode. list, export and show
only read: they create, write and delete nothing in the directory. A human
match's id starts with "-": give it after "--".
`

// runGames runs `flipbot games list|export|show|analyse`. Exit codes: 0
// done, 1 an error (no such directory or game, a write that failed, an
// analysis interrupted by a signal), 2 bad usage.
func runGames(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return gamesCtx(ctx, args, os.Getenv, os.Stdout, os.Stderr)
}

// games is runGames with its outside world injectable (tests).
func games(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	return gamesCtx(context.Background(), args, getenv, stdout, stderr)
}

// gamesCtx is games stopped by ctx (a signal).
func gamesCtx(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, gamesUsage)
		return exitUsage
	}
	switch args[0] {
	case "list":
		return gamesList(args[1:], getenv, stdout, stderr)
	case "export":
		return gamesExport(args[1:], getenv, stdout, stderr)
	case "show":
		return gamesShow(args[1:], getenv, stdout, stderr)
	case "analyse", "analyze":
		return gamesAnalyse(ctx, args[1:], getenv, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, gamesUsage)
		return exitOK
	}
	fmt.Fprintf(stderr, "flipbot games: unknown command %q\n%s", args[0], gamesUsage)
	return exitUsage
}

// gamesFlags are the flags the games commands share.
type gamesFlags struct {
	fs                     *flag.FlagSet
	name                   string
	dir                    string
	mode, result, opponent string
	stderr                 io.Writer
}

func newGamesFlags(cmd string, filters bool, getenv func(string) string, stderr io.Writer) *gamesFlags {
	g := &gamesFlags{name: "flipbot games " + cmd, stderr: stderr}
	g.fs = flag.NewFlagSet(g.name, flag.ContinueOnError)
	g.fs.SetOutput(stderr)
	def := config.DefaultGamesDir(getenv, applianceByDefault)
	g.fs.StringVar(&g.dir, "games-dir", def, "`DIR` of the game records, as flipbot's --games-dir")
	if filters {
		g.fs.StringVar(&g.mode, "mode", "", "only games of `MODE`: std, anti, grand, octagon or reversi")
		g.fs.StringVar(&g.result, "result", "", "only games the bot won, lost or drew (win, loss, draw), or whose match was aborted (aborted)")
		g.fs.StringVar(&g.opponent, "opponent", "", "only games against a bot whose name contains `TEXT` (any case)")
	}
	g.fs.Usage = func() {
		fmt.Fprint(stderr, gamesUsage+"\nflags of "+g.name+":\n")
		g.fs.PrintDefaults()
	}
	return g
}

// parse parses args, flags before or after the other arguments, and
// returns the others; everything after "--" is one of them.
func (g *gamesFlags) parse(args []string) ([]string, error) {
	var pos []string
	for {
		if err := g.fs.Parse(args); err != nil {
			return nil, err
		}
		rest := g.fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageError prints a usage error and returns exitUsage.
func (g *gamesFlags) usageError(format string, a ...any) int {
	fmt.Fprintf(g.stderr, "%s: %s\n", g.name, fmt.Sprintf(format, a...))
	return exitUsage
}

// fail prints an error and returns exitFailure.
func (g *gamesFlags) fail(err error) int {
	fmt.Fprintf(g.stderr, "%s: %v\n", g.name, err)
	return exitFailure
}

// errNoGamesYet is open's error when the games directory does not exist:
// flipbot has kept no game there yet (a fresh install).
var errNoGamesYet = errors.New("no games yet")

// open opens the games directory, which must exist (it is never created
// here): read-only for the commands that only read (list, export, show),
// which then write and delete nothing in it; for writing analyses
// (analyse) otherwise. A directory that does not exist is an error
// wrapping errNoGamesYet.
func (g *gamesFlags) open(readOnly bool) (*record.Store, error) {
	fi, err := os.Stat(g.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist (flipbot makes it when it keeps its first game)", errNoGamesYet, g.dir)
	}
	if err != nil {
		return nil, fmt.Errorf("games directory: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("games directory %s: not a directory", g.dir)
	}
	log := slog.New(slog.NewTextHandler(g.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := record.Open(record.Options{Dir: g.dir, Logger: log, ReadOnly: readOnly})
	if st := s.Status(); !st.OK {
		return nil, fmt.Errorf("games directory %s: %s", g.dir, st.Problem)
	}
	return s, nil
}

// parseCommon parses the flags and the filter. When done, the command
// ends with code: 0 after -h, exitUsage for bad flags.
func (g *gamesFlags) parseCommon(args []string) (pos []string, f record.Filter, done bool, code int) {
	pos, err := g.parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, f, true, exitOK
	}
	if err != nil {
		return nil, f, true, exitUsage // the flag package said why
	}
	if g.dir == "" {
		return nil, f, true, g.usageError("no games directory known: give --games-dir (neither $XDG_DATA_HOME nor $HOME is set)")
	}
	f, err = record.ParseFilter(g.mode, g.result, g.opponent)
	if err != nil {
		return nil, f, true, g.usageError("%v", err)
	}
	return pos, f, false, 0
}

func gamesList(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGamesFlags("list", true, getenv, stderr)
	pos, f, done, code := g.parseCommon(args)
	switch {
	case done:
		return code
	case len(pos) > 0:
		return g.usageError("unexpected argument %q", pos[0])
	}
	s, err := g.open(true)
	if errors.Is(err, errNoGamesYet) {
		fmt.Fprintln(stderr, err)
		return exitOK
	}
	if err != nil {
		return g.fail(err)
	}
	sums, _ := s.List(f, 0, 0)
	if len(sums) == 0 {
		if f == (record.Filter{}) {
			fmt.Fprintf(stderr, "no games yet in %s\n", g.dir)
		} else {
			fmt.Fprintf(stderr, "no games in %s match\n", g.dir)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tENDED\tMODE\tOPPONENT\tRESULT\tDISCS\tLOSS/MOVE\tWORST")
	for _, sum := range sums {
		loss, worst := "-", "-"
		if a := sum.Analysis; a != nil {
			mean, _, w := a.Side(sum.MyColor)
			loss, worst = fmt.Sprintf("%.2f", mean), worstText(w)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sum.ID, sum.Ended.Local().Format("2006-01-02 15:04"), sum.Mode,
			orDash(printable(sum.Opponent)), resultText(sum), discsText(sum), loss, worst)
	}
	if err := tw.Flush(); err != nil {
		return g.fail(err)
	}
	return exitOK
}

func gamesExport(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGamesFlags("export", true, getenv, stderr)
	formatName := g.fs.String("format", string(record.FormatJSONL), "jsonl (every mode) or ggf (std, anti, grand and octagon: GGS's game types 8, 8a, 10 and 88; reversi games are left out)")
	out := g.fs.String("out", "", "write to `FILE` (replaced whole, never left half written) instead of stdout")
	ids, f, done, code := g.parseCommon(args)
	switch {
	case done:
		return code
	}
	format, err := record.ParseFormat(*formatName)
	if err != nil {
		return g.usageError("--format: %v", err)
	}
	for _, id := range ids {
		if !record.ValidID(id) {
			return g.usageError("%q is not a game id", id)
		}
	}
	s, err := g.open(true)
	if errors.Is(err, errNoGamesYet) && len(ids) == 0 {
		// As an empty store: nothing written (an empty --out file).
		fmt.Fprintln(stderr, err)
		if *out != "" {
			if err := atomicfile.Write(*out, 0o644, func(io.Writer) error { return nil }); err != nil {
				return g.fail(err)
			}
		}
		return exitOK
	}
	if err != nil {
		return g.fail(err)
	}
	var st record.ExportStats
	if *out == "" {
		bw := bufio.NewWriterSize(stdout, 64<<10)
		st, err = s.Export(bw, format, f, ids...)
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
	} else {
		err = atomicfile.Write(*out, 0o644, func(w io.Writer) error {
			var err error
			st, err = s.Export(w, format, f, ids...)
			return err
		})
	}
	if err != nil {
		return g.fail(err)
	}
	if st.LeftOut > 0 {
		fmt.Fprintf(stderr, "left out %d %s: GGF has no form for classic reversi (jsonl keeps every mode)\n", st.LeftOut, plural(st.LeftOut, "reversi game"))
	}
	if st.Written == 0 && st.LeftOut == 0 && st.Gone == 0 && f == (record.Filter{}) && len(ids) == 0 {
		fmt.Fprintf(stderr, "no games yet in %s\n", g.dir)
	}
	if st.Gone > 0 {
		fmt.Fprintf(stderr, "%d games were rotated away while exporting\n", st.Gone)
	}
	if *out != "" {
		fmt.Fprintf(stderr, "wrote %d games to %s\n", st.Written, *out)
	}
	return exitOK
}

func gamesShow(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	g := newGamesFlags("show", false, getenv, stderr)
	pos, _, done, code := g.parseCommon(args)
	switch {
	case done:
		return code
	case len(pos) != 1:
		return g.usageError("give one game id, or the start of one")
	case !record.ValidID(pos[0]):
		return g.usageError("%q is not a game id", pos[0])
	}
	s, err := g.open(true)
	if err != nil {
		return g.fail(err)
	}
	id, err := resolveID(s, pos[0])
	if err != nil {
		return g.fail(fmt.Errorf("%w (in %s)", err, g.dir))
	}
	game, err := s.Get(id)
	if errors.Is(err, record.ErrNotFound) {
		return g.fail(fmt.Errorf("no game %s in %s", id, g.dir)) // rotated away meanwhile
	}
	if err != nil {
		return g.fail(err)
	}
	var an *record.Analysis
	switch a, err := s.Analysis(game.ID); {
	case err == nil:
		an = &a
	case !errNoAnalysis(err):
		fmt.Fprintf(stderr, "%s: the analysis is not shown: %v\n", g.name, err)
	}
	bw := bufio.NewWriter(stdout)
	err = writeGameText(bw, &game, an)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return g.fail(err)
	}
	return exitOK
}

// maxCandidates bounds the ids an ambiguous prefix's error lists.
const maxCandidates = 10

// resolveID returns the id of the kept game that id names: the game with
// that id, else the one game whose id starts with it (ids are
// MATCH-LEG-ENDED, so "1234-0" is leg 0 of match 1234). No game, or more
// than one (listed, newest first), is an error.
func resolveID(s *record.Store, id string) (string, error) {
	if _, err := s.Get(id); err == nil {
		return id, nil
	} else if !errors.Is(err, record.ErrNotFound) {
		return "", err
	}
	sums, _ := s.List(record.Filter{}, 0, 0)
	var found []string
	for _, sum := range sums {
		if strings.HasPrefix(sum.ID, id) {
			found = append(found, sum.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no game %s, nor one whose id starts with it", id)
	case 1:
		return found[0], nil
	}
	list := found[:min(len(found), maxCandidates)]
	more := ""
	if n := len(found) - len(list); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	return "", fmt.Errorf("%q is the start of %d game ids: %s%s; give more of one", id, len(found), strings.Join(list, ", "), more)
}

// plural returns "n word" with an s when n is not 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// writeGameText writes a game for people: who played what, the moves in
// the standard notation (with each move's loss and the best move when a is
// its analysis, nil if none), the final position and the result.
func writeGameText(w io.Writer, g *record.Game, a *record.Analysis) error {
	positions, err := g.Replay()
	if err != nil {
		return err // a kept game replays: Store checks every game it reads
	}
	final := positions[len(positions)-1]
	size := g.BoardSize
	var b strings.Builder
	fmt.Fprintf(&b, "Game %s\n", g.ID)
	switch {
	case g.Human && g.Round > 0:
		fmt.Fprintf(&b, "Match    human match %d, round %d, unrated\n", g.MatchID, g.Round)
	case g.Human:
		fmt.Fprintf(&b, "Match    human match %d, unrated\n", g.MatchID)
	default:
		rated := "unrated"
		if g.Ranked {
			rated = "rated"
		}
		src := "FlipSight"
		if g.Source == record.SourceArena {
			src = "flipbot-arena"
		}
		fmt.Fprintf(&b, "Match    %s match %d, leg %d, %s\n", src, g.MatchID, g.Leg, rated)
	}
	fmt.Fprintf(&b, "Mode     %s (%dx%d)\n", g.Mode, size, size)
	for _, p := range []struct {
		label string
		pl    record.Player
	}{{"Black", g.Black}, {"White", g.White}} {
		me := ""
		if p.pl.Me {
			me = " (this bot)"
		}
		fmt.Fprintf(&b, "%-8s %s%s\n", p.label, orDash(printable(p.pl.Name)), me)
	}
	fmt.Fprintf(&b, "Started  %s\n", g.Started.Local().Format("2006-01-02 15:04:05 MST"))
	fmt.Fprintf(&b, "Ended    %s\n", g.Ended.Local().Format("2006-01-02 15:04:05 MST"))
	secs := g.ClockMS / 1000
	fmt.Fprintf(&b, "Clock    %d:%02d per side\n", secs/60, secs%60)
	if len(g.Start.Opening) > 0 {
		names := make([]string, len(g.Start.Opening))
		for i, sq := range g.Start.Opening {
			names[i] = othello.SquareName(sq, size)
		}
		fmt.Fprintf(&b, "Opening  %s (the moves that made the start)\n", strings.Join(names, " "))
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if a != nil {
		fmt.Fprintln(tw, "  #\tcolour\tmove\ttime\tleft\tloss\tbest\tscore\teval")
	} else {
		fmt.Fprintln(tw, "  #\tcolour\tmove\ttime\tleft\teval")
	}
	for i, m := range g.Moves {
		eval := ""
		if m.Score != nil {
			eval = fmt.Sprintf("%+.2f", *m.Score)
		}
		if m.Exact {
			eval += " exact"
		} else if m.Depth > 0 {
			eval += fmt.Sprintf(" d%d", m.Depth)
		}
		if m.Source != "" && m.Source != "engine" {
			eval += " " + printable(m.Source)
		}
		if eval = strings.TrimSpace(eval); eval != "" {
			eval = "\t" + eval
		}
		analysed := ""
		if a != nil {
			am := a.Moves[i]
			analysed = fmt.Sprintf("\t%s\t%s\t%+.1f %s", lossText(am), am.BestSquare, am.Score, depthText(am.Depth, am.Exact))
			if eval == "" {
				eval = "\t"
			}
		}
		fmt.Fprintf(tw, "%3d\t%s\t%s\t%5.2fs\t%4.1fs%s%s\n", i+1, othello.Color(m.Color), othello.SquareName(m.Move, size),
			float64(m.TimeMS)/1000, float64(m.ClockMS)/1000, analysed, eval)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	b.Reset()
	if a != nil {
		fmt.Fprintf(&b, "\nAnalysis %s, %s, %.1f s; loss: discs lost against the best move (inaccuracy from %g, mistake from %g, blunder from %g)\n",
			a.Analysed.Local().Format("2006-01-02 15:04"), printable(a.Engine), float64(a.ElapsedMS)/1000,
			record.InaccuracyLoss, record.MistakeLoss, record.BlunderLoss)
		sum := a.Summary()
		for c, name := range []string{"Black", "White"} {
			mean, n, worst := sum.Side(c + 1)
			fmt.Fprintf(&b, "%-8s mean loss %.2f over %d moves, worst %s\n", name, mean, n, worstText(worst))
		}
		if len(a.TurningPoints) > 0 {
			fmt.Fprintf(&b, "Turning points: %s\n", turningText(a))
		}
	}
	b.WriteString("\nFinal position (X black, O white, # blocked)\n")
	writeBoard(&b, final)
	fmt.Fprintf(&b, "\nResult   %s\n", resultLine(g))
	if g.MatchResult != "" {
		reason := ""
		if g.Reason != "" {
			reason = " (" + printable(g.Reason) + ")"
		}
		fmt.Fprintf(&b, "Match    %s%s\n", printable(g.MatchResult), reason)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// writeBoard draws pos with rank 1 at the top, as the API numbers the
// squares (a1 = 0).
func writeBoard(b *strings.Builder, pos othello.Position) {
	size := pos.Size()
	blocked := pos.Mode.Blocked()
	b.WriteString("   ")
	for c := range size {
		b.WriteString(" " + string(rune('a'+c)))
	}
	b.WriteString("\n")
	for r := range size {
		fmt.Fprintf(b, "%2d ", r+1)
		for c := range size {
			sq := r*size + c
			ch := "-"
			switch {
			case blocked.Has(sq):
				ch = "#"
			case pos.At(sq) == othello.Black:
				ch = "X"
			case pos.At(sq) == othello.White:
				ch = "O"
			}
			b.WriteString(" " + ch)
		}
		b.WriteString("\n")
	}
}

// resultLine says who won the leg and by how much.
func resultLine(g *record.Game) string {
	var s string
	switch g.Winner {
	case 1:
		s = "black wins"
	case 2:
		s = "white wins"
	default:
		s = "a draw"
	}
	s += ", " + record.DiscsText(g.ResultDiscs, g.MyColor)
	if g.Mode == othello.Anti.String() {
		s += " (anti: fewer discs win)"
	}
	switch g.LegStatus {
	case "timeout":
		s += fmt.Sprintf("; ended on time (on the board: %d–%d)", g.Discs[0], g.Discs[1])
	case "stopped":
		s += "; the leg was stopped"
	}
	if g.Result != "" {
		s = g.Result + " for this bot: " + s
	}
	return s
}

// resultText is the RESULT column: the leg from the bot's side.
func resultText(s record.Summary) string {
	r := orDash(s.Result)
	if s.MatchResult == record.Aborted {
		r += " (aborted)"
	}
	return r
}

// discsText is the DISCS column: black's discs first and the bot's colour,
// as every view writes them ("25–0 (bot black)"; record.DiscsText).
func discsText(s record.Summary) string {
	return record.DiscsText(s.Discs, s.MyColor)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printable replaces control and bidirectional-control characters (names
// come from the server) so that they cannot move the terminal's cursor or
// reorder the text around them.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
}
