package web

import (
	"net/http"

	"flipbot.dev/flipbot/appliance/settings"
)

func (h *Handler) settingsData(w http.ResponseWriter, r *http.Request, s settings.Settings, notice, class string) pageData {
	return pageData{
		Title: "Settings", St: h.hub.Snapshot(), CSRF: h.csrf.token(w, r),
		Notice: notice, NoticeClass: class,
		Set: s, Modes: settings.Modes(), Displays: settings.DisplayTypes(), Egaroucid: h.cfg.Egaroucid,
	}
}

// serveSettingsPage shows the settings form (behind the admin password).
func (h *Handler) serveSettingsPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "settings", h.settingsData(w, r, h.backend.Settings(), h.takeFlash(r), ""))
}

// serveSettingsPost validates, saves and applies the settings.
func (h *Handler) serveSettingsPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if !h.csrf.check(r) {
		h.message(w, r, http.StatusForbidden, "Form expired", "The form was not sent by this device's page (CSRF check). Reload the page and try again.", "/settings")
		return
	}
	s, err := settings.FromForm(h.backend.Settings(), r.PostForm)
	if err == nil {
		err = s.Validate(h.cfg.Egaroucid)
	}
	if err != nil {
		h.render(w, http.StatusUnprocessableEntity, "settings", h.settingsData(w, r, s, "Not saved: "+err.Error(), "error"))
		return
	}
	notice := "Saved. Engine changes apply when no match runs; the indicators change now."
	if err := h.backend.ApplySettings(s); err != nil {
		notice = "Applied until the next restart, but not saved: " + err.Error()
	}
	h.setFlash(r, notice)
	http.Redirect(w, r, "/settings", http.StatusSeeOther)
}
