package appliance

import (
	"net/http"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
)

func (a *app) settingsData(w http.ResponseWriter, r *http.Request, s settings.Settings, notice, class string) pageData {
	return pageData{
		Title: "Settings", St: a.hub.Snapshot(), CSRF: a.csrf.token(w, r),
		Notice: notice, NoticeClass: class,
		Set: s, Modes: settings.Modes(), Displays: settings.DisplayTypes(), Egaroucid: a.cfg.EgaroucidInstalled,
	}
}

// serveSettingsPage shows the settings form (behind the admin password).
func (a *app) serveSettingsPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, http.StatusOK, "settings", a.settingsData(w, r, a.currentSettings(), a.takeFlash(r), ""))
}

// serveSettingsPost validates, saves and applies the settings.
func (a *app) serveSettingsPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if !a.csrf.check(r) {
		a.message(w, r, http.StatusForbidden, "Form expired", "The form was not sent by this device's page (CSRF check). Reload the page and try again.", "/settings")
		return
	}
	s, err := settings.FromForm(a.currentSettings(), r.PostForm)
	if err == nil {
		err = s.Validate(a.cfg.EgaroucidInstalled)
	}
	if err != nil {
		a.render(w, http.StatusUnprocessableEntity, "settings", a.settingsData(w, r, s, "Not saved: "+err.Error(), "error"))
		return
	}
	notice := "Saved. Engine changes apply when no match runs; the indicators change now."
	if err := a.settingsFile.Save(s); err != nil {
		a.log.Error("save settings", "err", err)
		notice = "Applied until the next restart, but not saved: " + err.Error()
	}
	a.applySettings(s)
	a.setFlash(r, notice)
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}

func (a *app) currentSettings() settings.Settings {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.settings
}

// applySettings hands new settings to the bot (applied when idle) and the
// indicators (at once).
func (a *app) applySettings(s settings.Settings) {
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
		a.cfg.Indicators.Configure(s)
	}
	if a.cfg.Games != nil {
		a.cfg.Games.SetCap(int64(s.GamesMB) << 20)
	}
}
