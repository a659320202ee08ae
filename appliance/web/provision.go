package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"syscall"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/flipsight"
)

// serveSetup takes the pairing code and the token of the first-boot form.
// The try is counted before the body is read. Whether the form may set a
// token at all, and which of two setups at once does, is the backend's
// answer (Backend.SetupOpen, Backend.SetUpToken): the other is told
// "already set up".
func (h *Handler) serveSetup(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if err := h.backend.SetupOpen(); err != nil {
		if errors.Is(err, ErrAlreadySetUp) {
			h.alreadySetUp(w, r)
			return
		}
		h.message(w, r, http.StatusServiceUnavailable, "Not ready yet",
			"The device is still waiting for the network and the clock; the pairing code appears once it has them. Try again in a moment.", "/")
		return
	}
	key := clientKey(r)
	try, wait := h.codeLimit.begin(key)
	if try == nil {
		h.tooMany(w, r, wait, "pairing codes")
		return
	}
	if !h.csrf.check(r) {
		try.ok() // guessed nothing
		h.message(w, r, http.StatusForbidden, "Form expired", "The form was not sent by this device's page (CSRF check). Reload the page and try again.", "/")
		return
	}
	if !codeMatches(r.PostFormValue("code"), h.backend.PairingCode()) {
		h.refused.note("wrong pairing code", "client", key)
		if try.failed() {
			h.backend.HardenPairingCode()
		}
		h.renderSetup(w, r, http.StatusForbidden, "Wrong pairing code. Type the code shown on the device's display or in its log.")
		return
	}
	try.ok()
	notice, err := h.acceptToken(r.Context(), r.PostFormValue("token"), h.backend.SetUpToken)
	switch {
	case errors.Is(err, ErrAlreadySetUp):
		h.alreadySetUp(w, r)
	case err != nil:
		h.renderSetup(w, r, http.StatusUnprocessableEntity, notice)
	default:
		h.setFlash(r, notice)
		http.Redirect(w, r, "/", http.StatusSeeOther)
	}
}

func (h *Handler) alreadySetUp(w http.ResponseWriter, r *http.Request) {
	h.message(w, r, http.StatusConflict, "Already set up",
		"This device already has a token. Change it on the token page, with the admin password.", "/token")
}

// renderSetup shows the first-boot page with an error notice ("" for none).
// The token field is always empty: a token is never sent back.
func (h *Handler) renderSetup(w http.ResponseWriter, r *http.Request, code int, notice string) {
	h.render(w, code, "setup", pageData{
		Title: "Set up", St: h.hub.Snapshot(), CSRF: h.csrf.token(w, r),
		Notice: notice, NoticeClass: "error",
	})
}

// acceptToken checks a pasted token's form and hands it to the backend
// (use: Backend.SetUpToken or Backend.UseToken), which checks it with
// FlipSight, keeps it and starts the bot with it. It returns the notice
// for the page and the error that refused the token (nil: accepted).
// Nothing it returns holds the token.
func (h *Handler) acceptToken(ctx context.Context, raw string, use func(context.Context, flipsight.Token) (TokenUse, error)) (string, error) {
	tok, err := store.ParseToken(raw)
	if err != nil {
		return "That is not a bot token: " + err.Error() + ".", err
	}
	u, err := use(ctx, tok)
	switch {
	case errors.Is(err, ErrNotReady):
		return "The device is still waiting for the network and the clock (or is stopping). Try again in a moment; nothing was saved.", err
	case errors.Is(err, ErrAlreadySetUp):
		return "", err
	case errors.Is(err, ErrTokenRejected):
		return "FlipSight rejected this token (invalid bot credential). Create a new one on your bot's page and paste it whole. Nothing was saved.", err
	case err != nil:
		return "Could not check the token with FlipSight: " + err.Error() + ". Nothing was saved; check the network and try again.", err
	}
	notice := fmt.Sprintf("Token accepted for bot %s and saved. The bot is connecting.", u.Bot.Name)
	if u.Source == state.TokenMemory {
		// The page says what happened, not where: file paths stay in the
		// log, which only the owner reads.
		notice = fmt.Sprintf("Token accepted for bot %s, but it could not be saved (%s; details in the device's log). The bot runs until the next restart.", u.Bot.Name, saveProblem(u.SaveErr))
	}
	if u.EnvWins {
		notice += " " + config.TokenEnv + " is set in the environment and stays in effect."
	}
	return notice, nil
}

// serveTokenPage shows the token page (behind the admin password).
func (h *Handler) serveTokenPage(w http.ResponseWriter, r *http.Request) {
	h.render(w, http.StatusOK, "token", pageData{Title: "Token", St: h.hub.Snapshot(), CSRF: h.csrf.token(w, r), Notice: h.takeFlash(r)})
}

// serveTokenPost replaces or removes the token (behind the admin password).
func (h *Handler) serveTokenPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if !h.csrf.check(r) {
		h.message(w, r, http.StatusForbidden, "Form expired", "The form was not sent by this device's page (CSRF check). Reload the page and try again.", "/token")
		return
	}
	switch r.PostFormValue("action") {
	case "replace":
		notice, err := h.acceptToken(r.Context(), r.PostFormValue("token"), h.backend.UseToken)
		code := http.StatusOK
		class := ""
		if err != nil {
			code, class = http.StatusUnprocessableEntity, "error"
		}
		h.render(w, code, "token", pageData{Title: "Token", St: h.hub.Snapshot(), CSRF: h.csrf.token(w, r), Notice: notice, NoticeClass: class})
	case "remove":
		if err := h.removeToken(); err != nil {
			h.render(w, http.StatusInternalServerError, "token", pageData{Title: "Token", St: h.hub.Snapshot(), CSRF: h.csrf.token(w, r), Notice: err.Error(), NoticeClass: "error"})
			return
		}
		h.setFlash(r, "The saved token was removed. Set the device up again with the new pairing code.")
		http.Redirect(w, r, "/", http.StatusSeeOther)
	default:
		h.message(w, r, http.StatusBadRequest, "Unknown action", "The form asked for an unknown action.", "/token")
	}
}

// removeToken asks the backend to delete the saved token, stop the bot and
// start setup again; the error is the page's.
func (h *Handler) removeToken() error {
	if err := h.backend.RemoveToken(); err != nil {
		if errors.Is(err, ErrNotReady) {
			return errors.New("the device is still starting or is stopping; try again in a moment")
		}
		return fmt.Errorf("could not remove the saved token (%s; details in the device's log)", saveProblem(err))
	}
	return nil
}

// saveProblem names what went wrong with the token file without its
// path: a page shows it to whoever set the device up.
func saveProblem(err error) string {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case store.IsReadOnly(err):
		return "the storage is read-only"
	case errors.Is(err, syscall.ENOSPC):
		return "the storage is full"
	case errors.Is(err, fs.ErrNotExist):
		return "the storage is missing"
	}
	return "storage error"
}
