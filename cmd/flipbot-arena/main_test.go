package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/engines/ggf"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/internal/testutil"
)

func TestUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no subcommand", nil, 2, "usage"},
		{"unknown", []string{"dance"}, 2, "unknown subcommand"},
		{"serve without bots", []string{"serve"}, 2, "no bots"},
		{"bad bot", []string{"serve", "--bot", "x"}, 2, "NAME:TOKEN"},
		{"bad builtin level", []string{"serve", "--builtin", "house:abc"}, 2, "level"},
		{"bad mode", []string{"serve", "--bot", "alpha:secret:chess"}, 2, "chess"},
		{"bad challenge", []string{"serve", "--bot", "alpha:t", "--challenge", "alpha"}, 2, "FROM:TO"},
		{"bad human", []string{"serve", "--bot", "alpha:t", "--human", "alpha:grand:xot"}, 2, "xot"},
		{"match without engines", []string{"match"}, 2, "need --a"},
		{"match bad mode", []string{"match", "--a", "builtin", "--b", "builtin", "--mode", "x"}, 2, "need --a"},
		{"demo bad mode", []string{"demo", "--mode", "x"}, 2, "valid --mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			var code int
			switch {
			case len(c.args) == 0 || (c.args[0] != "serve" && c.args[0] != "match" && c.args[0] != "demo"):
				code = run(c.args)
				assert.Equal(t, c.code, code)
				return
			case c.args[0] == "serve":
				code = serve(context.Background(), c.args[1:], &out, &errb)
			case c.args[0] == "match":
				code = runMatch(c.args[1:], &out, &errb)
			default:
				code = runDemo(c.args[1:], &out, &errb)
			}
			assert.Equal(t, c.code, code)
			assert.Contains(t, errb.String(), c.msg)
		})
	}
}

// TestSubcommandHelp: -h of each subcommand prints its usage line and
// flags and exits 0 (serve -h exited 2).
func TestSubcommandHelp(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(args []string, stdout, stderr io.Writer) int
		want []string
	}{
		{"serve", func(args []string, stdout, stderr io.Writer) int {
			return serve(context.Background(), args, stdout, stderr)
		}, []string{"usage: flipbot-arena serve", "--bot NAME:TOKEN", "-listen"}},
		{"match", runMatch, []string{"usage: flipbot-arena match --a CMD --b CMD", "-pairs"}},
		{"demo", runDemo, []string{"usage: flipbot-arena demo", "-games-dir", "temporary directory"}},
	} {
		for _, h := range []string{"-h", "--help"} {
			t.Run(c.name+" "+h, func(t *testing.T) {
				var out, errb bytes.Buffer
				assert.Equal(t, 0, c.run([]string{h}, &out, &errb))
				for _, w := range c.want {
					assert.Contains(t, errb.String(), w)
				}
			})
		}
	}
}

func TestBotFlagNeverEchoesToken(t *testing.T) {
	var out, errb bytes.Buffer
	code := serve(context.Background(), []string{"--bot", "alpha:supersecret:std:extra"}, &out, &errb)
	assert.Equal(t, 2, code)
	assert.NotContains(t, errb.String(), "supersecret")
}

func TestParseChallenge(t *testing.T) {
	c, err := parseChallenge("house:alpha:grand")
	require.NoError(t, err)
	assert.Equal(t, challengeOrder{"house", "alpha", othello.Grand}, c)
	_, err = parseChallenge("a:b:c:d")
	assert.Error(t, err)
}

// TestServe: the printed URLs work; a --challenge from a built-in reaches
// the bot once it is online.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--bot", "alpha:tok-a:std,anti", "--builtin", "house:0", "--challenge", "house:alpha:anti", "--human", "alpha:std:xot"}, &out, &errb)
	}()
	var api string
	require.Eventually(t, func() bool {
		sc := bufio.NewScanner(strings.NewReader(out.String()))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "--api" {
				api = f[1]
			}
		}
		return api != ""
	}, 10*time.Second, 10*time.Millisecond)
	post := func(body string) map[string]any {
		req, _ := http.NewRequest(http.MethodPost, api, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer tok-a")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var ans map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&ans))
		return ans
	}
	ans := post(`{"action":"agent_poll"}`)
	require.Equal(t, true, ans["ok"])
	require.Eventually(t, func() bool {
		ms, _ := post(`{"action":"agent_poll"}`)["matches"].([]any)
		if len(ms) != 2 {
			return false
		}
		human, pair := ms[0].(map[string]any), ms[1].(map[string]any)
		return human["kind"] == "human" && human["id"].(float64) < 0 && pair["game_mode"] == "anti"
	}, 10*time.Second, 50*time.Millisecond, "the built-in's challenge and the human match arrive")
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	assert.NotContains(t, errb.String(), "tok-a", "the token is never logged")
}

// TestMatchCommand: a short tournament between two built-in levels.
func TestMatchCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := runMatch([]string{"--a", "builtin:1", "--b", "builtin:0", "--mode", "anti", "--pairs", "3", "--clock-ms", "5000", "--concurrency", "2", "-json"}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var res map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
	assert.Equal(t, float64(3), res["played"])
	assert.Equal(t, float64(3), res["wins"].(float64)+res["draws"].(float64)+res["losses"].(float64)+res["aborted"].(float64))
	assert.Contains(t, errb.String(), "3/3")
	out.Reset()
	games := filepath.Join(t.TempDir(), "t.jsonl")
	code = runMatch([]string{"--a", "builtin:1", "--b", "builtin:1", "--pairs", "2", "--clock-ms", "5000", "--games", games}, &out, &errb)
	require.Equal(t, 0, code, errb.String())
	// Every leg in JSON lines; the std legs also in GGF, both readable.
	b, err := os.ReadFile(games)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 4)
	for _, l := range lines {
		g, err := record.ParseLine([]byte(l))
		require.NoError(t, err)
		assert.Equal(t, record.SourceArena, g.Source)
		assert.ElementsMatch(t, []string{"builtin-1-A", "builtin-1-B"}, []string{g.Black.Name, g.White.Name})
	}
	gb, err := os.ReadFile(strings.TrimSuffix(games, ".jsonl") + ".ggf")
	require.NoError(t, err)
	recs := strings.Split(strings.TrimSuffix(string(gb), "\n"), "\n")
	require.Len(t, recs, 4)
	for _, r := range recs {
		_, err := ggf.Parse(r)
		require.NoError(t, err)
	}
	assert.Contains(t, out.String(), "Elo builtin-1-A − builtin-1-B")
	assert.Contains(t, out.String(), "95% interval")
}

// TestDemoWithoutFlipbot: the demo says flipbot cannot play and shows a
// match with its own client.
func TestDemoWithoutFlipbot(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a whole match in real time; skipped with -short")
	}
	var out bytes.Buffer
	code := runDemo([]string{"--flipbot", "/nonexistent/flipbot", "--clock-ms", "20000"}, &out, io.Discard)
	require.Equal(t, 0, code, out.String())
	s := out.String()
	assert.Contains(t, s, "flipbot cannot play yet")
	assert.Contains(t, s, "minimal API player")
	assert.Contains(t, s, "challenged flipbot-demo")
	assert.Contains(t, s, "msg=move")
	assert.Contains(t, s, "demo: match #1 finished")
	assert.Contains(t, s, "page         http://127.0.0.1:")
}

// TestServeTLS: --tls serves HTTPS with a certificate clients can trust
// from --tls-cert.
func TestServeTLS(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	certFile := filepath.Join(t.TempDir(), "arena.pem")
	var out, errb testutil.SyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--bot", "alpha:tok-a", "--tls", "--tls-cert", certFile}, &out, &errb)
	}()
	var api string
	require.Eventually(t, func() bool {
		for _, line := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "--api" {
				api = f[1]
			}
		}
		return api != ""
	}, 10*time.Second, 10*time.Millisecond)
	require.True(t, strings.HasPrefix(api, "https://127.0.0.1:"))
	pemBytes, err := os.ReadFile(certFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(pemBytes))
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodPost, api, strings.NewReader(`{"action":"agent_poll"}`))
	req.Header.Set("Authorization", "Bearer tok-a")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode)
	cancel()
	assert.Equal(t, 0, <-done)
}

// TestDemoWithFlipbot: the demo with the real flipbot binary, built here.
func TestDemoWithFlipbot(t *testing.T) {
	if testing.Short() {
		t.Skip("builds flipbot and plays a whole match in real time; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "flipbot")
	build := exec.Command("go", "build", "-o", bin, "flipbot.dev/flipbot/cmd/flipbot")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build flipbot: %v\n%s", err, out)
	}
	// The owner's store must stay untouched: HOME and XDG_DATA_HOME point
	// at an empty folder that has to stay empty.
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	var out bytes.Buffer
	code := runDemo([]string{"--flipbot", bin, "--clock-ms", "10000"}, &out, io.Discard)
	require.Equal(t, 0, code, out.String())
	s := out.String()
	assert.NotContains(t, s, "cannot play yet", "flipbot itself played")
	assert.Contains(t, s, "flipbot | ")
	assert.Contains(t, s, "demo: match #1 finished")
	entries, err := os.ReadDir(home)
	require.NoError(t, err)
	assert.Empty(t, entries, "the demo wrote into the owner's data directory")
	m := regexp.MustCompile(`demo's games in (\S+), removed at the end`).FindStringSubmatch(s)
	require.NotNil(t, m, s)
	assert.NoDirExists(t, m[1], "the temporary store is removed")
	assert.Contains(t, s, "keeping game records", "flipbot kept the games (in the temporary store)")
}

// TestServeHelpExplainsLevels: serve -h says what --builtin house:4 is.
func TestServeHelpExplainsLevels(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 0, serve(context.Background(), []string{"-h"}, &out, &errb))
	help := errb.String()
	assert.Contains(t, help, "Built-in levels (--builtin NAME:LEVEL; 4 when none is given)")
	assert.Contains(t, help, "house:4 is a bot named house searching 4 moves ahead")
	assert.Contains(t, help, "a random legal move")
	assert.Contains(t, help, "full strength")
}
