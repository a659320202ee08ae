package appliance

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/web"
)

// raceIterations is how often each interleaving of a pasted token and the
// card's token is played.
func raceIterations() int {
	if testing.Short() {
		return 5
	}
	return 25
}

// within waits for c, failing the test after limit (which only a broken
// ordering reaches: every wait here ends at once on a sound one).
func within[T any](t *testing.T, c <-chan T, limit time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(limit):
		t.Fatalf("timed out: %s", what)
	}
	var zero T
	return zero
}

// cardRetrying starts an env whose card holds tokA and whose first check
// of it found FlipSight unreachable: the card's token is being retried and
// setup is offered. It returns the pairing code.
func cardRetrying(t *testing.T) (*testEnv, string) {
	t.Helper()
	e := startEnv(t, withCard(fakeCard{data: []byte(tokA), mod: time.Now(), ok: true}), func(cfg *Config, a *app) {
		cfg.Checker.(*fakeChecker).err = errNetworkForTest
	})
	st := e.waitFor("the card's token unchecked, setup offered", func(s state.Status) bool {
		return s.Card.Outcome == state.CardUnchecked && s.PairingCode != ""
	})
	return e, st.PairingCode
}

var errNetworkForTest = &netErr{}

type netErr struct{}

func (*netErr) Error() string { return "dial tcp: network is unreachable" }

// setGate makes the checker answer again (no error), calling gate first.
func (e *testEnv) setGate(gate func(tok string)) {
	e.checker.mu.Lock()
	e.checker.err, e.checker.gate = nil, gate
	e.checker.mu.Unlock()
}

// pasteAsync posts tok on the setup page with code and sends the answer's
// status on the returned channel.
func (e *testEnv) pasteAsync(code, tok string) <-chan int {
	csrf := e.csrf("/", false)
	res := make(chan int, 1)
	go func() {
		form := url.Values{"csrf": {csrf}, "code": {code}, "token": {tok}}
		req, _ := http.NewRequest(http.MethodPost, e.base+"/setup", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := e.client.Do(req)
		if err != nil {
			res <- -1
			return
		}
		resp.Body.Close()
		res <- resp.StatusCode
	}()
	return res
}

// pastedWon checks that tokB, pasted on the page, is the token in effect
// everywhere once the card's retry has given up, and that the card's
// token was never played.
func (e *testEnv) pastedWon(t *testing.T) {
	t.Helper()
	waitLog(t, e.logs, "the card's token is not used")
	for tok := e.player.waitStart(t); tok != tokB; tok = e.player.waitStart(t) {
	}
	st := e.waitFor("the pasted token in effect", func(s state.Status) bool { return s.Token == state.TokenStored })
	assert.Empty(t, st.PairingCode)
	assert.Equal(t, tokB, storedToken(t, e), "the pasted token is the stored one")
	e.player.mu.Lock()
	played := slices.Clone(e.player.tokens)
	e.player.mu.Unlock()
	assert.NotContains(t, played, tokA, "the card's token was never played")
	assert.Equal(t, tokB, played[len(played)-1])
}

// TestPastedTokenWinsOverTheCardToken races a token pasted on the setup
// page against the card's token, retried after FlipSight was unreachable
// at the start, in both orders of their checks: the pasted token wins,
// in the store, the status and the bot, and the paste never waits for the
// card's check.
func TestPastedTokenWinsOverTheCardToken(t *testing.T) {
	t.Run("paste during the card's check", func(t *testing.T) {
		for i := range raceIterations() {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				e, code := cardRetrying(t)
				cardChecking, releaseCard := make(chan struct{}), make(chan struct{})
				var once sync.Once
				t.Cleanup(func() { once.Do(func() { close(releaseCard) }) })
				var seen sync.Once
				e.setGate(func(tok string) {
					if tok == tokA {
						seen.Do(func() { close(cardChecking) })
						<-releaseCard
					}
				})
				within(t, cardChecking, 10*time.Second, "the card's token is checked again")
				status := within(t, e.pasteAsync(code, tokB), 10*time.Second, "the paste waited for the card's check")
				require.Equal(t, http.StatusSeeOther, status)
				once.Do(func() { close(releaseCard) })
				e.pastedWon(t)
			})
		}
	})
	t.Run("the card's check ends during the paste's", func(t *testing.T) {
		for i := range raceIterations() {
			t.Run(strconv.Itoa(i), func(t *testing.T) {
				e, code := cardRetrying(t)
				pasteChecking, cardChecked, releasePaste := make(chan struct{}), make(chan struct{}), make(chan struct{})
				var once sync.Once
				t.Cleanup(func() { once.Do(func() { close(releasePaste) }) })
				var seenPaste, seenCard sync.Once
				e.setGate(func(tok string) {
					switch tok {
					case tokB:
						seenPaste.Do(func() { close(pasteChecking) })
						<-releasePaste
					case tokA:
						<-pasteChecking
						seenCard.Do(func() { close(cardChecked) })
					}
				})
				res := e.pasteAsync(code, tokB)
				within(t, cardChecked, 10*time.Second, "the card's check ran beside the paste's")
				once.Do(func() { close(releasePaste) })
				require.Equal(t, http.StatusSeeOther, within(t, res, 10*time.Second, "the paste answered"))
				e.pastedWon(t)
			})
		}
	})
}

// TestTokenPostsDoNotWaitForTheDrain: replacing or removing the token on
// the token page answers once the token is kept (or removed), while the
// old bot still finishes its moves in flight (here it hangs until the
// test lets it go).
func TestTokenPostsDoNotWaitForTheDrain(t *testing.T) {
	for _, action := range []string{"replace", "remove"} {
		t.Run(action, func(t *testing.T) {
			e := provisioned(t, func(_ *Config, a *app) { a.runner.moveDrain = time.Hour })
			hang := make(chan struct{})
			var once sync.Once
			let := func() { once.Do(func() { close(hang) }) }
			t.Cleanup(let)
			e.player.mu.Lock()
			e.player.hang = hang
			e.player.mu.Unlock()
			csrf := e.csrf("/token", true)
			res := make(chan int, 1)
			go func() {
				form := url.Values{"csrf": {csrf}, "action": {action}, "token": {tokB}}
				req, _ := http.NewRequest(http.MethodPost, e.base+"/token", strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.SetBasicAuth(web.AdminUser, testPassword)
				resp, err := e.client.Do(req)
				if err != nil {
					res <- -1
					return
				}
				resp.Body.Close()
				res <- resp.StatusCode
			}()
			status := within(t, res, 10*time.Second, "the POST waited for the old bot's drain")
			e.player.mu.Lock()
			drained := e.player.drained
			e.player.mu.Unlock()
			assert.Zero(t, drained, "the old bot is still draining")
			if action == "replace" {
				assert.Equal(t, http.StatusOK, status)
				assert.Equal(t, tokB, storedToken(t, e), "kept before the answer")
				let()
				assert.Equal(t, tokB, e.player.waitStart(t), "the new bot starts once the old one stopped")
				return
			}
			assert.Equal(t, http.StatusSeeOther, status)
			st := e.waitFor("setup needed", func(s state.Status) bool { return s.Token == state.TokenNone && s.PairingCode != "" })
			assert.Equal(t, state.TokenNone, st.Token)
			let()
		})
	}
}
