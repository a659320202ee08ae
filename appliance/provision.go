package appliance

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"syscall"
	"time"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/flipsight"
)

// tokenCheckTimeout bounds the agent_poll that checks a pasted token.
const tokenCheckTimeout = 20 * time.Second

// setupNeeded reports whether the first-boot page is shown: no token in effect.
func setupNeeded(st state.Status) bool { return st.Token == state.TokenNone }

// serveSetup takes the pairing code and the token of the first-boot form.
// The try is counted before the body is read; posts are serialised, so of
// two at once only one sets the token and the other is told "already set
// up".
func (a *app) serveSetup(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if !setupNeeded(a.hub.Snapshot()) {
		a.alreadySetUp(w, r)
		return
	}
	if a.hub.Snapshot().Phase != state.PhaseRunning {
		a.message(w, r, http.StatusServiceUnavailable, "Not ready yet",
			"The device is still waiting for the network and the clock; the pairing code appears once it has them. Try again in a moment.", "/")
		return
	}
	key := clientKey(r)
	try, wait := a.codeLimit.begin(key)
	if try == nil {
		a.tooMany(w, r, wait, "pairing codes")
		return
	}
	if !a.csrf.check(r) {
		try.ok() // guessed nothing
		a.message(w, r, http.StatusForbidden, "Form expired", "The form was not sent by this device's page (CSRF check). Reload the page and try again.", "/")
		return
	}
	if !codeMatches(r.PostFormValue("code"), a.pairingCode()) {
		a.log.Warn("wrong pairing code", "client", key)
		if try.failed() {
			a.hardenPairingCode()
		}
		a.renderSetup(w, r, http.StatusForbidden, "Wrong pairing code. Type the code shown on the device's display or in its log.")
		return
	}
	try.ok()
	a.setupMu.Lock()
	defer a.setupMu.Unlock()
	if !setupNeeded(a.hub.Snapshot()) {
		a.alreadySetUp(w, r)
		return
	}
	notice, ok := a.acceptToken(r.Context(), r.PostFormValue("token"))
	if !ok {
		a.renderSetup(w, r, http.StatusUnprocessableEntity, notice)
		return
	}
	a.setFlash(r, notice)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (a *app) alreadySetUp(w http.ResponseWriter, r *http.Request) {
	a.message(w, r, http.StatusConflict, "Already set up",
		"This device already has a token. Change it on the token page, with the admin password.", "/token")
}

// hardenPairingCode answers too many wrong codes from all clients: the
// code becomes twelve digits (a fresh one each time), shown on the display
// and in the log as before. Nobody is locked out: the owner reads the new
// code off the device; guessing it is hopeless (SECURITY.md).
func (a *app) hardenPairingCode() {
	a.mu.Lock()
	a.longCode = true
	a.mu.Unlock()
	a.rotatePairingCode("too many wrong pairing codes: the code is twelve digits now")
}

// renderSetup shows the first-boot page with an error notice ("" for none).
// The token field is always empty: a token is never sent back.
func (a *app) renderSetup(w http.ResponseWriter, r *http.Request, code int, notice string) {
	a.render(w, code, "setup", pageData{
		Title: "Set up", St: a.hub.Snapshot(), CSRF: a.csrf.token(w, r),
		Notice: notice, NoticeClass: "error",
	})
}

// acceptToken checks a pasted token's form, checks it with FlipSight, keeps
// it and starts the bot with it. It returns the notice for the page and
// whether the token was accepted. Nothing it returns or logs holds the token.
func (a *app) acceptToken(ctx context.Context, raw string) (string, bool) {
	tok, err := store.ParseToken(raw)
	if err != nil {
		return "That is not a bot token: " + err.Error() + ".", false
	}
	if a.hub.Snapshot().Phase != state.PhaseRunning {
		return "The device is still waiting for the network and the clock (or is stopping). Try again in a moment; nothing was saved.", false
	}
	a.tokenMu.Lock()
	defer a.tokenMu.Unlock()
	info, src, rejected, err := a.checkAndSaveLocked(ctx, tok, "a pasted token")
	switch {
	case src == state.TokenMemory:
	case rejected:
		return "FlipSight rejected this token (invalid bot credential). Create a new one on your bot's page and paste it whole. Nothing was saved.", false
	case err != nil:
		return "Could not check the token with FlipSight: " + err.Error() + ". Nothing was saved; check the network and try again.", false
	}
	notice := fmt.Sprintf("Token accepted for bot %s and saved. The bot is connecting.", info.Name)
	if src == state.TokenMemory {
		// The page says what happened, not where: file paths stay in the
		// log, which only the owner reads.
		notice = fmt.Sprintf("Token accepted for bot %s, but it could not be saved (%s; details in the device's log). The bot runs until the next restart.", info.Name, saveProblem(err))
	}
	if a.envWins() {
		notice += " " + config.TokenEnv + " is set in the environment and stays in effect."
		return notice, true
	}
	a.hub.Update(func(st *state.Status) {
		st.Token = src
		st.PairingCode = ""
	})
	a.runner.setToken(a.ctx, tok, info)
	return notice, true
}

// checkAndSave checks tok with FlipSight (what names it in the log) and
// saves it to the store. rejected reports FlipSight's refusal; err, with the
// token redacted, a failure to check it. src is TokenStored, or TokenMemory
// when the check passed but /perm could not keep the token (err is then
// the save error).
func (a *app) checkAndSave(ctx context.Context, tok flipsight.Token, what string) (info state.BotInfo, src state.TokenSource, rejected bool, err error) {
	a.tokenMu.Lock()
	defer a.tokenMu.Unlock()
	return a.checkAndSaveLocked(ctx, tok, what)
}

// checkAndSaveLocked is checkAndSave with tokenMu held.
func (a *app) checkAndSaveLocked(ctx context.Context, tok flipsight.Token, what string) (state.BotInfo, state.TokenSource, bool, error) {
	cctx, cancel := context.WithTimeout(ctx, tokenCheckTimeout)
	info, err := a.checker.CheckToken(cctx, tok)
	cancel()
	switch {
	case errors.Is(err, ErrTokenRejected):
		a.log.Warn(what + " was rejected by FlipSight")
		return info, state.TokenNone, true, err
	case err != nil:
		err = errors.New(redact(err.Error(), tok))
		a.log.Warn("could not check "+what, "err", err)
		return info, state.TokenNone, false, err
	}
	if err := a.tokens.Save(tok); err != nil {
		a.log.Error("token checked but not saved", "err", redact(err.Error(), tok))
		return info, state.TokenMemory, false, err
	}
	a.log.Info("token saved", "bot", info.Name)
	return info, state.TokenStored, false, nil
}

// redact removes tok from s (errors of lower layers should never hold it;
// this is the last guard before a page or a log).
func redact(s string, tok flipsight.Token) string {
	if tok.IsZero() {
		return s
	}
	return strings.ReplaceAll(s, tok.Reveal(), "[token]")
}

// serveTokenPage shows the token page (behind the admin password).
func (a *app) serveTokenPage(w http.ResponseWriter, r *http.Request) {
	a.render(w, http.StatusOK, "token", pageData{Title: "Token", St: a.hub.Snapshot(), CSRF: a.csrf.token(w, r), Notice: a.takeFlash(r)})
}

// serveTokenPost replaces or removes the token (behind the admin password).
func (a *app) serveTokenPost(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16<<10)
	if !a.csrf.check(r) {
		a.message(w, r, http.StatusForbidden, "Form expired", "The form was not sent by this device's page (CSRF check). Reload the page and try again.", "/token")
		return
	}
	switch r.PostFormValue("action") {
	case "replace":
		notice, ok := a.acceptToken(r.Context(), r.PostFormValue("token"))
		code := http.StatusOK
		class := ""
		if !ok {
			code, class = http.StatusUnprocessableEntity, "error"
		}
		a.render(w, code, "token", pageData{Title: "Token", St: a.hub.Snapshot(), CSRF: a.csrf.token(w, r), Notice: notice, NoticeClass: class})
	case "remove":
		if err := a.removeToken(); err != nil {
			a.render(w, http.StatusInternalServerError, "token", pageData{Title: "Token", St: a.hub.Snapshot(), CSRF: a.csrf.token(w, r), Notice: err.Error(), NoticeClass: "error"})
			return
		}
		a.setFlash(r, "The saved token was removed. Set the device up again with the new pairing code.")
		http.Redirect(w, r, "/", http.StatusSeeOther)
	default:
		a.message(w, r, http.StatusBadRequest, "Unknown action", "The form asked for an unknown action.", "/token")
	}
}

// removeToken deletes the saved token, stops the bot (unless the
// environment's token is in effect) and starts setup with a new code.
func (a *app) removeToken() error {
	if a.hub.Snapshot().Phase != state.PhaseRunning {
		return errors.New("the device is still starting or is stopping; try again in a moment")
	}
	a.tokenMu.Lock()
	defer a.tokenMu.Unlock()
	if err := a.tokens.Remove(); err != nil {
		a.log.Error("remove token", "err", err)
		return fmt.Errorf("could not remove the saved token (%s; details in the device's log)", saveProblem(err))
	}
	a.log.Info("saved token removed")
	a.mu.Lock()
	a.longCode = false // a new setup, asked for by the owner
	a.mu.Unlock()
	if a.envWins() {
		return nil
	}
	a.runner.setToken(a.ctx, flipsight.Token{}, state.BotInfo{})
	a.hub.Update(func(st *state.Status) { st.Token = state.TokenNone })
	a.rotatePairingCode("token removed")
	return nil
}

// pairingCode returns the current code.
func (a *app) pairingCode() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.code
}

// rotatePairingCode makes a new code, publishes it and logs it (gokrazy's
// web UI shows the log to the owner only).
func (a *app) rotatePairingCode(why string) {
	a.mu.Lock()
	long := a.longCode
	a.mu.Unlock()
	newCode := newPairingCode
	if long {
		newCode = newLongPairingCode
	}
	code, err := newCode()
	if err != nil {
		a.log.Error("new pairing code", "err", err)
		return
	}
	a.mu.Lock()
	a.code = code
	a.mu.Unlock()
	// Log before publishing, so that whoever sees the code on the display
	// finds it in the log too.
	if st := a.hub.Snapshot(); setupNeeded(st) {
		a.log.Info("setup needed: open the page and type the pairing code", "pairing_code", code, "pages", strings.Join(st.Device.PageURLs, " "), "why", why)
	}
	a.hub.Update(func(st *state.Status) {
		if st.Token == state.TokenNone {
			st.PairingCode = code
		}
	})
}

// setFlash keeps a notice for the next page view of r's browser only.
func (a *app) setFlash(r *http.Request, s string) { a.flashes.set(r, s, time.Now()) }

// takeFlash returns (once) the notice kept for r's browser.
func (a *app) takeFlash(r *http.Request) string { return a.flashes.take(r, time.Now()) }

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
