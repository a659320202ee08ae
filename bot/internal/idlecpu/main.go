// Command idlecpu measures the CPU the bot uses while idle: it runs a Bot
// (built-in engine, stream on) against the server given by --api for
// --seconds, and prints the process's user+system time from /proc/self/stat
// over that period as a percentage of one core. Run the server in another
// process (flipbot-arena serve) so that only the bot is measured:
//
//	flipbot-arena serve --listen 127.0.0.1:18431 --bot me:fsbm_idle &
//	FS_BOT_TOKEN=fsbm_idle go run ./bot/internal/idlecpu --api http://127.0.0.1:18431/flipsight/bot_match_api.php --seconds 60
//
// One file, main.go. A command beside the bot, not a shipped one: it may
// import bot, engines and engines/search (the built-in engine), flipsight
// (the client) and config (the token's variable).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/flipsight"
)

func main() {
	api := flag.String("api", "", "API URL of a local server")
	secs := flag.Float64("seconds", 60, "measuring period")
	warm := flag.Float64("warmup", 3, "seconds before measuring")
	flag.Parse()
	tok, err := flipsight.NewToken(os.Getenv(config.TokenEnv))
	if err != nil {
		fail(err)
	}
	c, err := flipsight.NewClient(flipsight.Config{APIURL: *api, Token: tok})
	if err != nil {
		fail(err)
	}
	eng := search.New(search.Options{Threads: 1, HashMB: 16})
	b, err := bot.New(bot.Options{Client: c, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Engine: bot.Engines{Name: eng.Name(), Provider: engines.Shared(eng)}})
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	time.Sleep(time.Duration(*warm * float64(time.Second)))
	if st := b.Status(); st.State != bot.StateOnline {
		fail(fmt.Errorf("bot is %s, not online (last error %q)", st.State, st.LastError))
	}
	t0, c0 := time.Now(), cpuTicks()
	time.Sleep(time.Duration(*secs * float64(time.Second)))
	t1, c1 := time.Now(), cpuTicks()
	state := b.Status().State
	cancel()
	<-done
	const hz = 100 // USER_HZ on Linux
	used := float64(c1-c0) / hz
	wall := t1.Sub(t0).Seconds()
	fmt.Printf("idle bot: %.2f s CPU over %.1f s = %.3f %% of one core (state %s)\n", used, wall, 100*used/wall, state)
}

// cpuTicks returns utime+stime of this process in clock ticks.
func cpuTicks() int64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		fail(err)
	}
	// Fields after the command name, which is in parentheses.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	// f[0] is field 3 (state); utime is field 14, stime 15.
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return u + st
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "idlecpu:", err)
	os.Exit(1)
}
