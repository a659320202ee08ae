package appliance

import (
	"log/slog"
	"sync"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
)

// settingsKeeper holds the settings in effect and their file on /perm.
type settingsKeeper struct {
	file *store.File[settings.Settings]

	mu sync.Mutex // guards s
	s  settings.Settings
}

// get returns the settings in effect.
func (k *settingsKeeper) get() settings.Settings {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.s
}

// load reads the stored settings at the start (the defaults when there
// are none or they are not valid here) and puts them in effect.
func (k *settingsKeeper) load(egaroucid bool, log *slog.Logger) settings.Settings {
	s, err := k.file.Load()
	if err != nil {
		log.Warn("settings", "err", err)
	}
	if err := s.Validate(egaroucid); err != nil {
		log.Warn("stored settings are not valid here; using the defaults", "err", err)
		s = settings.Default()
	}
	k.mu.Lock()
	k.s = s
	k.mu.Unlock()
	return s
}

// put saves s and puts it in effect; the error is the save's, and s is in
// effect all the same.
func (k *settingsKeeper) put(s settings.Settings) error {
	err := k.file.Save(s)
	k.mu.Lock()
	k.s = s
	k.mu.Unlock()
	return err
}

// Settings implements web.Backend: the settings in effect.
func (a *app) Settings() settings.Settings { return a.settings.get() }

// ApplySettings implements web.Backend: it saves valid settings and hands
// them to the bot (applied when no match runs) and the indicators (at
// once), without a reboot. The error is the save's; s applies all the same,
// until the next restart.
func (a *app) ApplySettings(s settings.Settings) error {
	err := a.settings.put(s)
	if err != nil {
		a.log.Error("save settings", "err", err)
	}
	a.log.Info("settings changed", "max_matches", s.MaxMatches, "threads", s.Threads, "hash_mb", s.HashMB, "display", s.Display)
	// Before the clock is set the runner has not started; it starts with
	// the settings in effect.
	if a.hub.Snapshot().Phase == state.PhaseRunning {
		a.runner.setSettings(s)
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
