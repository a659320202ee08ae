package appliance

import (
	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
)

// Settings implements web.Backend: the settings in effect.
func (a *app) Settings() settings.Settings {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.settings
}

// ApplySettings implements web.Backend: it saves valid settings and hands
// them to the bot (applied when no match runs) and the indicators (at
// once), without a reboot. The error is the save's; s applies all the same,
// until the next restart.
func (a *app) ApplySettings(s settings.Settings) error {
	err := a.settingsFile.Save(s)
	if err != nil {
		a.log.Error("save settings", "err", err)
	}
	a.mu.Lock()
	a.settings = s
	a.mu.Unlock()
	a.log.Info("settings changed", "max_matches", s.MaxMatches, "threads", s.Threads, "hash_mb", s.HashMB, "display", s.Display)
	// Before the clock is set the runner has not started; it starts with
	// the settings in a.settings.
	if a.hub.Snapshot().Phase == state.PhaseRunning {
		a.runner.setSettings(a.ctx, s)
	} else {
		a.hub.Update(func(st *state.Status) { st.Engine = s.EngineSettings() })
	}
	if a.cfg.Indicators != nil {
		found := a.cfg.Indicators.Configure(s)
		a.hub.Update(func(st *state.Status) { st.Indicators = found })
	}
	if a.cfg.Games != nil {
		a.cfg.Games.SetCap(int64(s.GamesMB) << 20)
	}
	return err
}

// RatingHistory implements web.Backend: the bot's rating over time.
func (a *app) RatingHistory() ratings.History {
	if a.ratings == nil {
		return ratings.History{} // before the start-up has read it
	}
	return a.ratings.history()
}
