package web

import (
	"context"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/flipsight"
)

// Backend is what the pages need of the running appliance besides the
// status they read from the Hub. The appliance implements it; the pages
// never touch the files, the bot or the indicators themselves. Its methods
// are called from request goroutines, concurrently.
type Backend interface {
	// RefreshFacts brings the slowly changing device facts in the status
	// up to date (addresses, free space, uptimes, the game records).
	RefreshFacts()
	// PairingCode returns the code the setup form must carry ("" while
	// there is none).
	PairingCode() string
	// HardenPairingCode answers too many wrong codes from all clients: a
	// new, twelve-digit code, shown on the display and in the log.
	HardenPairingCode()
	// UseToken checks tok with FlipSight, keeps it and starts the bot with
	// it.
	UseToken(ctx context.Context, tok flipsight.Token) TokenUse
	// RemoveToken deletes the saved token, stops the bot (unless the
	// environment's token is in effect) and starts setup again with a new
	// pairing code. The error is the store's (the pages name its kind,
	// never its path).
	RemoveToken() error
	// Settings returns the settings in effect.
	Settings() settings.Settings
	// ApplySettings hands valid settings to the bot (applied when no match
	// runs) and the indicators (at once), and saves them; the error is the
	// save's, and s applies all the same.
	ApplySettings(s settings.Settings) error
	// RatingHistory returns the bot's rating over time (a copy).
	RatingHistory() ratings.History
	// Mirror returns what the status LEDs and the display show now, from
	// the status that drives them (no LEDs without indicators).
	Mirror() state.Mirror
	// DisplayPNG returns the display's current screen as a PNG (an error
	// without indicators).
	DisplayPNG() ([]byte, error)
}

// TokenUse is what became of a token given to Backend.UseToken.
type TokenUse struct {
	// Bot is whom FlipSight said the token names.
	Bot state.BotInfo
	// Source is state.TokenStored; state.TokenMemory when the token was
	// checked but /perm could not keep it (Err says why); state.TokenNone
	// when it was not used (Rejected, or Err).
	Source state.TokenSource
	// Rejected: FlipSight refused the token.
	Rejected bool
	// Err is why the check failed (it never holds the token) or, with
	// state.TokenMemory, why the save did.
	Err error
	// EnvWins: FS_BOT_TOKEN is set and stays in effect; the token was
	// saved for later, nothing else changed.
	EnvWins bool
}
