package arena

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// pageFixture has a finished match, a running pair with some moves, and
// a running octagon match.
func pageFixture(t *testing.T) *fixture {
	f := newFixture(t, Config{})
	a, b := f.client(t, "ta"), f.client(t, "tb")
	// A rejected challenge, for the recent results.
	a.poll()
	b.poll()
	_, ans := a.call(map[string]any{"action": "agent_challenge", "target_id": 2, "game_mode": "anti"})
	_, _ = b.call(map[string]any{"action": "agent_reject", "match_id": ans["match_id"]})
	id := runningPair(t, f, a, b, "std")
	for i := 0; i < 3; i++ {
		f.clock.Advance(1500 * time.Millisecond)
		a.step()
		b.step()
	}
	_ = id
	f.srv.mu.Lock()
	f.srv.bots[0].maxMatches = 5
	f.srv.bots[1].maxMatches = 5
	f.srv.mu.Unlock()
	_, err := f.srv.Challenge("beta", "alpha", othello.Octagon)
	require.NoError(t, err)
	a.step()
	return f
}

// TestPageHTML: the page lists the bots, boards of both legs with clocks,
// and the JS refresh endpoint answers the same fragment.
func TestPageHTML(t *testing.T) {
	f := pageFixture(t)
	resp, err := http.Get(f.ts.URL + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)
	html := string(body)
	for _, want := range []string{"alpha", "beta", "--api http://127.0.0.1:", "/flipsight_api/bot-stream", "Live matches", `class="board-svg s8"`, `class="board-svg s10"`, `<text class="coord" x="42" y="15">a</text>`, "leg 0", "leg 1", "0:5", "Recent results", "rejected", "<script>"} {
		assert.Contains(t, html, want)
	}
	assert.Equal(t, 2, strings.Count(html, `data-match=`), "two live matches")
	resp, err = http.Get(f.ts.URL + "/arena/live")
	require.NoError(t, err)
	frag, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(frag), `data-match=`)
	assert.NotContains(t, string(frag), "<script>")
	resp, err = http.Get(f.ts.URL + "/arena/state.json")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
}

// TestPageInChromium renders the page in headless Chromium and keeps the
// screenshot (FLIPBOT_ARTIFACTS, default the temp directory).
func TestPageInChromium(t *testing.T) {
	chromium := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Skip("chromium not installed (Debian: apt-get install chromium); the page's browser test is skipped")
	}
	if testing.Short() && os.Getenv("FLIPBOT_BROWSER_TESTS") != "1" {
		t.Skip("the Chromium test takes ~10 s; skipped with -short unless FLIPBOT_BROWSER_TESTS=1")
	}
	f := pageFixture(t)
	dir := os.Getenv("FLIPBOT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "flipbot-artifacts")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	shot := filepath.Join(dir, "arena-page.png")
	_ = os.Remove(shot)
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--window-size=1200,900", "--virtual-time-budget=2500"}
	run := func(extra ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, chromium, append(append(args, extra...), f.ts.URL+"/")...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		require.NoError(t, cmd.Run(), "chromium: %s", errb.String())
		return out.Bytes()
	}
	// The DOM after the scripts ran (the live part refreshed by fetch).
	dom := string(run("--dump-dom"))
	assert.Contains(t, dom, "flipbot arena")
	assert.Contains(t, dom, `class="board-svg s8"`)
	assert.Contains(t, dom, "alpha")
	assert.Equal(t, 2, strings.Count(dom, "data-match="))
	run("--screenshot=" + shot)
	st, err := os.Stat(shot)
	require.NoError(t, err, "no screenshot")
	png, err := os.ReadFile(shot)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(png, []byte("\x89PNG")), "screenshot is a PNG")
	assert.Greater(t, st.Size(), int64(10_000), "screenshot has content")
	t.Logf("page screenshot: %s (%d bytes)", shot, st.Size())
}
