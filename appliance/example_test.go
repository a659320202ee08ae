package appliance_test

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"flipbot.dev/flipbot/appliance"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/flipsight"
)

// idlePlayer stands in for the bot: it is online until stopped.
type idlePlayer struct{}

func (idlePlayer) Play(ctx context.Context, token flipsight.Token, s settings.Settings, report func(bot.Status)) error {
	report(bot.Status{State: bot.StateOnline, Bot: bot.BotInfo{Name: "demo"}})
	<-ctx.Done()
	return nil
}

// Run with a checker for pasted tokens and a player, until SIGTERM. The
// flipbot command does the same through appliance.Main, with the real
// FlipSight checker, the bot package's player and the LEDs.
func ExampleRun() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	code := appliance.Run(ctx, appliance.Config{
		Dir:     "/tmp/flipbot-home", // $HOME on /perm on the device
		Checker: appliance.FlipSightChecker{APIURL: "http://127.0.0.1:8088/flipsight/bot_match_api.php"},
		Player:  idlePlayer{},
		Logger:  slog.Default(),
	})
	os.Exit(code)
}
