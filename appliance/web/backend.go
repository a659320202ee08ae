package web

import (
	"context"
	"errors"

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
	// SetupOpen says whether the setup form may set a token: nil, or
	// ErrAlreadySetUp (a token is in effect), or ErrNotReady.
	SetupOpen() error
	// SetUpToken is UseToken for the setup form: it sets tok only while
	// no token is in effect (else ErrAlreadySetUp), so that of two setups
	// at once one wins.
	SetUpToken(ctx context.Context, tok flipsight.Token) (TokenUse, error)
	// UseToken checks tok with FlipSight, keeps it and hands it to the
	// bot, without waiting for the old bot to stop. The error is
	// ErrNotReady, one wrapping ErrTokenRejected, or why FlipSight could
	// not be asked (it never holds the token); nothing was kept then.
	UseToken(ctx context.Context, tok flipsight.Token) (TokenUse, error)
	// RemoveToken deletes the saved token, stops the bot (unless the
	// environment's token is in effect) and starts setup again with a new
	// pairing code, without waiting for the old bot to stop. The error is
	// ErrNotReady or the store's (the pages name its kind, never its
	// path).
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

// The errors of the Backend's token methods the pages tell apart.
var (
	// ErrNotReady: the device cannot change its token yet (it waits for
	// the network and the clock) or any more (it is stopping).
	ErrNotReady = errors.New("the device is not ready for a token")
	// ErrAlreadySetUp: the setup form was sent while a token is in effect.
	ErrAlreadySetUp = errors.New("a token is already in effect")
	// ErrTokenRejected: FlipSight refused the token.
	ErrTokenRejected = errors.New("FlipSight rejected the token")
)

// TokenUse is what became of a token the Backend accepted.
type TokenUse struct {
	// Bot is whom FlipSight said the token names.
	Bot state.BotInfo
	// Source is state.TokenStored, or state.TokenMemory when the token
	// was checked but /perm could not keep it (SaveErr says why).
	Source state.TokenSource
	// SaveErr is why /perm could not keep the token (with
	// state.TokenMemory).
	SaveErr error
	// EnvWins: FS_BOT_TOKEN is set and stays in effect; the token was
	// saved for later, nothing else changed.
	EnvWins bool
}
