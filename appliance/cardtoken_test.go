package appliance

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
	"flipbot.dev/flipbot/gpio"
)

// fakeCard is a boot partition holding (or not) a token file.
type fakeCard struct {
	data []byte
	mod  time.Time
	ok   bool
	err  error
}

func (c fakeCard) ReadCardToken() ([]byte, time.Time, bool, error) { return c.data, c.mod, c.ok, c.err }

func withCard(c fakeCard) envOption {
	return func(cfg *Config, a *app) { cfg.CardToken, a.token.card, a.token.cardRetry = c, c, 50*time.Millisecond }
}

// withStored saves tok as the stored token, written at mod.
func withStored(t *testing.T, tok string, mod time.Time) envOption {
	return func(cfg *Config, a *app) {
		require.NoError(t, a.token.file.Save(mustToken(t, tok)))
		require.NoError(t, os.Chtimes(filepath.Join(cfg.Dir, store.TokenFileName), mod, mod))
	}
}

func storedToken(t *testing.T, e *testEnv) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.a.cfg.Dir, store.TokenFileName))
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

func TestCardTokenFirstBoot(t *testing.T) {
	now := time.Now()
	e := startEnv(t, withCard(fakeCard{data: []byte("\xef\xbb\xbftoken=" + tokA + "\r\n"), mod: now, ok: true}))
	st := e.waitFor("online from the card", func(s state.Status) bool { return s.Token == state.TokenStored && s.Card.Outcome == state.CardUsed })
	assert.Equal(t, "TestBot", st.Bot.Name)
	assert.Equal(t, tokA, e.player.waitStart(t), "the bot plays with the card's token")
	assert.Equal(t, tokA, storedToken(t, e), "saved to /perm")
	fi, err := os.Stat(filepath.Join(e.a.cfg.Dir, store.TokenFileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.Empty(t, e.a.PairingCode(), "no pairing code: setup is never offered")
	_, body := e.get("/", false)
	assert.NotContains(t, body, `name="code"`)
	assert.Contains(t, body, "flipbot-token.txt", "the status page says the file is on the card")
	assert.Contains(t, body, "next update erases it")
	assert.Contains(t, e.logs.String(), "token source: the card's token file")
	assert.NotContains(t, e.logs.String(), tokA)
}

func TestCardTokenRefused(t *testing.T) {
	const unknown = "fsbm_UNKNOWNUNKNOWNUNKNOWN"
	e := startEnv(t, withCard(fakeCard{data: []byte(unknown + "\n"), mod: time.Now(), ok: true}))
	st := e.waitFor("setup offered after a refused card token", func(s state.Status) bool {
		return s.Card.Outcome == state.CardRefused && s.Kind == state.KindSetupNeeded && s.PairingCode != ""
	})
	assert.Contains(t, st.Card.Message, "refused")
	_, body := e.get("/", false)
	assert.Contains(t, body, `name="code"`, "setup stays available")
	assert.Contains(t, body, "FlipSight refused the token in flipbot-token.txt")
	assert.Contains(t, ToGPIOStatus(st, time.Now()).Detail, "refused", "the display says so")
	assert.Equal(t, gpio.SetupNeeded, ToGPIOStatus(st, time.Now()).Kind)
	assert.NotContains(t, e.logs.String(), unknown)
}

func TestCardTokenMalformed(t *testing.T) {
	e := startEnv(t, withCard(fakeCard{data: []byte("hello\n" + tokA + "\n"), mod: time.Now(), ok: true}))
	st := e.waitFor("malformed card token reported", func(s state.Status) bool { return s.Card.Outcome == state.CardInvalid && s.PairingCode != "" })
	assert.Contains(t, st.Card.Message, "2 lines")
	assert.Contains(t, ToGPIOStatus(st, time.Now()).Detail, "flipbot-token.txt")
	assert.NotContains(t, e.logs.String(), tokA)
	_, body := e.get("/", false)
	assert.NotContains(t, body, tokA)
	assert.Equal(t, 0, e.checker.calls, "a malformed file is never sent to FlipSight")
}

func TestCardTokenWithStoredToken(t *testing.T) {
	old := time.Now().Add(-time.Hour)
	cases := []struct {
		name    string
		card    string
		cardMod time.Time
		want    state.CardOutcome
		plays   string
	}{
		{"same token", tokA, time.Now(), state.CardSame, tokA},
		{"different, older file", tokB, old.Add(-time.Hour), state.CardOlder, tokA},
		{"different, newer file", tokB, time.Now(), state.CardUsed, tokB},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := startEnv(t, withStored(t, tokA, old), withCard(fakeCard{data: []byte(c.card), mod: c.cardMod, ok: true}))
			e.waitFor("card outcome", func(s state.Status) bool { return s.Card.Outcome == c.want && s.Token == state.TokenStored })
			assert.Equal(t, c.plays, e.player.waitStart(t))
			assert.Equal(t, c.plays, storedToken(t, e))
		})
	}
}

func TestCardTokenEnvWins(t *testing.T) {
	e := startEnv(t, func(cfg *Config, a *app) { a.token.env = mustToken(t, tokB) }, withCard(fakeCard{data: []byte(tokA), mod: time.Now(), ok: true}))
	e.waitFor("env wins", func(s state.Status) bool { return s.Card.Outcome == state.CardEnv && s.Token == state.TokenEnv })
	assert.Equal(t, tokB, e.player.waitStart(t))
}

func TestCardTokenRetriedWhenFlipSightUnreachable(t *testing.T) {
	e := startEnv(t, withCard(fakeCard{data: []byte(tokA), mod: time.Now(), ok: true}), func(cfg *Config, a *app) {
		cfg.Checker.(*fakeChecker).err = errors.New("dial tcp: network is unreachable")
	})
	e.waitFor("unchecked, setup offered", func(s state.Status) bool { return s.Card.Outcome == state.CardUnchecked && s.PairingCode != "" })
	e.checker.mu.Lock()
	e.checker.err = nil
	e.checker.mu.Unlock()
	e.waitFor("accepted on a retry", func(s state.Status) bool { return s.Card.Outcome == state.CardUsed && s.Token == state.TokenStored })
	assert.Equal(t, tokA, e.player.waitStart(t))
	code, _ := e.get("/", false)
	assert.Equal(t, http.StatusOK, code)
}

func TestNoCardTokenFile(t *testing.T) {
	e := startEnv(t, withCard(fakeCard{}))
	st := e.waitFor("setup", func(s state.Status) bool { return s.PairingCode != "" })
	assert.False(t, st.Card.Present)
	_, body := e.get("/", false)
	assert.NotContains(t, body, "flipbot-token.txt")
}
