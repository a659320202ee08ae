package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines/external"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
	"flipbot.dev/flipbot/internal/clock"
	"flipbot.dev/flipbot/internal/wait"
)

// runChallenge sends agent_challenge: `flipbot challenge NAME|ID [--mode
// MODE]`. It prints the match id; exit code 2 for a missing or rejected
// token or bad flags, 1 for other failures, the challenges refused before
// sending included.
//
// Before sending, it refuses a mode that the bot's engine (the engine
// flags, as the connector's; none: the built-in engine, every mode) or
// the bot itself (agent_poll's bot.supported_games) does not play, and
// polls once to look the target up in bots[]: a target that does not list
// the mode in supported_games is refused. A target missing from bots[], or
// listing no supported games, is challenged anyway with a warning: its
// games are unknown here, and FlipSight checks both bots' games itself (409
// "unsupported game mode", or "target bot not found"), whereas a bot
// that is there but left out of our list (an entry the client refused as
// malformed, or a list the site cuts short) could not be challenged at
// all otherwise.
//
// While FlipSight answers 409 "site bot variant matches are full" (at
// most 2 variant matches with its own bots at once), it sends the
// challenge again up to --retries times, waiting --retry-wait (or the
// answer's Retry-After) before each; other errors are not retried.
func runChallenge(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return challenge(ctx, args, os.Getenv, os.Stdout, os.Stderr, sleep)
}

// sleep is wait.Sleep on the system clock.
func sleep(ctx context.Context, d time.Duration) error { return wait.Sleep(ctx, clock.System(), d) }

// challenge is runChallenge with its outside world injectable (tests).
func challenge(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer,
	sleep func(context.Context, time.Duration) error) int {
	c, err := config.ParseChallenge(args, getenv, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "flipbot challenge: %v\n", err)
		return exitToken
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "flipbot challenge: %v\n", err)
		if flipsight.IsAuth(err) {
			return exitToken
		}
		return exitFailure
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	mode, err := othello.ParseMode(c.Mode)
	if err != nil {
		return fail(err)
	}
	ext := external.Config{Engine: c.Engine, NBoard: c.NBoard, Edax: c.Edax, Egaroucid: c.Egaroucid}
	if kind, _ := ext.Kind(); kind != external.None && !ext.Supports(mode) {
		return fail(fmt.Errorf("not sent: the bot's engine (--%s) plays std only, not %s", kind, mode))
	}

	client, err := flipsight.NewClient(flipsight.Config{APIURL: c.API, StreamURL: c.StreamURL, Token: c.Token})
	if err != nil {
		return fail(err)
	}
	poll, err := client.Poll(ctx, nil)
	if err != nil {
		return fail(err)
	}
	if err := checkChallenge(poll, c, log); err != nil {
		return fail(fmt.Errorf("not sent: %w", err))
	}

	req := flipsight.ChallengeRequest{TargetID: c.TargetID, TargetName: c.TargetName, GameMode: c.Mode}
	for retry := 0; ; retry++ {
		resp, err := client.Challenge(ctx, req)
		if err == nil {
			fmt.Fprintf(stdout, "challenge sent: match %d (%s)\n", resp.MatchID, c.Mode)
			return exitOK
		}
		e := flipsight.AsAPIError(err)
		if e == nil || e.Code != flipsight.CodeSiteBotVariantsFull {
			return fail(err)
		}
		if retry >= c.Retries {
			return fail(fmt.Errorf("%w (still, after %d retries)", err, c.Retries))
		}
		wait := c.RetryWait
		if e.RetryAfter > 0 {
			wait = e.RetryAfter
		}
		log.Info("FlipSight's site bot variant matches are full: sending the challenge again",
			"retry", retry+1, "of", c.Retries, "in", wait)
		if err := sleep(ctx, wait); err != nil {
			return fail(fmt.Errorf("not sent again: %w", err))
		}
	}
}

// checkChallenge returns why a challenge of c must not be sent, from a
// poll's answer: this bot or the target does not list the mode among its
// supported games. A target missing from bots[] (or listing no games) is
// only warned about.
func checkChallenge(poll *flipsight.PollResponse, c config.Challenge, log *slog.Logger) error {
	if me := poll.Bot; me != nil && len(me.SupportedGames) > 0 && !me.Supports(c.Mode) {
		return fmt.Errorf("this bot (%s) lists supported games %s, not %s: add it on the bot's page first",
			strconv.Quote(me.Name), strconv.Quote(strings.Join(me.SupportedGames, ", ")), c.Mode)
	}
	i := slices.IndexFunc(poll.Bots, func(b flipsight.Bot) bool {
		return c.TargetID != 0 && b.ID == c.TargetID || c.TargetID == 0 && b.Name == c.TargetName
	})
	target := []any{"target", c.TargetName}
	if c.TargetID != 0 {
		target = []any{"target_id", c.TargetID}
	}
	if i < 0 {
		for _, b := range poll.Bots {
			if c.TargetID == 0 && strings.EqualFold(b.Name, c.TargetName) {
				target = append(target, "listed", b.Name) // the name but for its case
			}
		}
		log.Warn("the target is not in agent_poll's bots[]: its supported games are unknown here; sending the challenge anyway (FlipSight checks them)", target...)
		return nil
	}
	b := poll.Bots[i]
	if len(b.SupportedGames) == 0 {
		log.Warn("the target lists no supported games: sending the challenge anyway (FlipSight checks them)", target...)
		return nil
	}
	if !b.Supports(c.Mode) {
		return fmt.Errorf("%s (id %d) supports %s, not %s", strconv.Quote(b.Name), b.ID,
			strconv.Quote(strings.Join(b.SupportedGames, ", ")), c.Mode)
	}
	return nil
}
