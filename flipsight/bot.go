package flipsight

import "encoding/json"

// Bot is a registered bot as agent_poll lists it (bots[], record_bots[],
// and bot for oneself).
type Bot struct {
	ID             int64           `json:"id"`
	Name           string          `json:"name"`
	OwnerID        Text            `json:"owner_id,omitempty"`
	OwnerName      string          `json:"owner_name,omitempty"`
	Owner          *Owner          `json:"owner,omitempty"`
	EngineLevel    json.RawMessage `json:"engine_level,omitempty"`
	Rating         *Rating         `json:"rating,omitempty"`
	SupportedGames []string        `json:"supported_games"`
	AutoMatch      bool            `json:"auto_match"`
	Bio            string          `json:"bio,omitempty"`
	RegisteredAt   string          `json:"registered_at,omitempty"`
	RegisteredAtTS int64           `json:"registered_at_ts,omitempty"`
	Environment    *Environment    `json:"environment,omitempty"`
	IsBuiltin      bool            `json:"is_builtin"`
	Online         bool            `json:"online"`
	Disabled       bool            `json:"disabled"`
	Deleted        bool            `json:"deleted"`
	Photo          string          `json:"photo,omitempty"`
}

// Owner is the player who registered a bot.
type Owner struct {
	PlayerID         Text   `json:"player_id"`
	Name             string `json:"name"`
	Photo            string `json:"photo,omitempty"`
	CountryCode      string `json:"country_code"`
	CountryName      string `json:"country_name"`
	CountryFlagURL   string `json:"country_flag_url"`
	Donor            bool   `json:"donor"`
	VerifiedPlayerID Text   `json:"verified_player_id"`
}

// Rating is a bot's rating record.
type Rating struct {
	Rating           float64           `json:"rating"`
	RD               float64           `json:"rd"`
	Official         bool              `json:"official"`
	OfficialProgress *OfficialProgress `json:"official_progress,omitempty"`
	Color            string            `json:"color,omitempty"`
	HighRating       float64           `json:"high_rating"`
	Wins             int               `json:"wins"`
	Losses           int               `json:"losses"`
	Draws            int               `json:"draws"`
	Streak           int               `json:"streak"`
	BestStreak       int               `json:"best_streak"`
}

// OfficialProgress tells how far a provisional rating is from official.
type OfficialProgress struct {
	Kind     string `json:"kind"`
	Current  int    `json:"current"`
	Required int    `json:"required"`
}

// Supports reports whether the bot lists mode among its supported games.
func (b *Bot) Supports(mode string) bool {
	for _, g := range b.SupportedGames {
		if g == mode {
			return true
		}
	}
	return false
}
