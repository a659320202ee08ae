package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/flipsight"
)

// runChallenge sends agent_challenge: `flipbot challenge NAME|ID [--mode
// MODE]`. It prints the match id; exit code 2 for a missing or rejected
// token, 1 for other failures.
func runChallenge(args []string) int {
	c, err := config.ParseChallenge(args, os.Getenv, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case err != nil:
		fmt.Fprintf(os.Stderr, "flipbot challenge: %v\n", err)
		return exitToken
	}
	client, err := flipsight.NewClient(flipsight.Config{APIURL: c.API, StreamURL: c.StreamURL, Token: c.Token})
	if err != nil {
		fmt.Fprintf(os.Stderr, "flipbot challenge: %v\n", err)
		return exitFailure
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := client.Challenge(ctx, flipsight.ChallengeRequest{TargetID: c.TargetID, TargetName: c.TargetName, GameMode: c.Mode})
	if err != nil {
		fmt.Fprintf(os.Stderr, "flipbot challenge: %v\n", err)
		if flipsight.IsAuth(err) {
			return exitToken
		}
		return exitFailure
	}
	fmt.Printf("challenge sent: match %d (%s)\n", resp.MatchID, c.Mode)
	return exitOK
}
