package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/search"
	"flipbot.dev/flipbot/flipsight"
)

// Example shows how a program starts the bot with a token, watches its
// status, and stops it cleanly.
func Example() {
	tok, err := flipsight.NewToken(os.Getenv("FS_BOT_TOKEN"))
	if err != nil {
		fmt.Println(err) // never contains the token
		return
	}
	client, err := flipsight.NewClient(flipsight.Config{Token: tok}) // othelloclub.com by default
	if err != nil {
		fmt.Println(err)
		return
	}
	eng := search.New(search.Options{}) // the built-in engine, shared by all legs
	b, err := bot.New(bot.Options{
		Client:     client,
		Engine:     bot.Engines{Name: eng.Name(), Provider: engines.Shared(eng)},
		MaxMatches: 2,
		Logger:     slog.Default(),
		OnStatus: func(st bot.Status) {
			// Called from the bot's loop after every change: copy and return.
			fmt.Println(st.State, len(st.Matches), "matches")
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Cancelling the context stops the bot: it accepts nothing new,
	// finishes the moves in flight, closes the engines and returns.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := b.Run(ctx); flipsight.IsAuth(err) {
		fmt.Println("token rejected")
	}
	// b.Status() may be called at any time from any goroutine.
	fmt.Println(b.Status().State)
}
