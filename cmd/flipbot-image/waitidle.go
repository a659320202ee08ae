package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
)

// maxStatusBytes bounds the /api/status body read: the device's own is a
// few KiB with two matches running; anything past this is not flipbot's.
const maxStatusBytes = 1 << 20

// waitReportEvery is how often wait-idle says what it still waits for.
const waitReportEvery = 30 * time.Second

// downGrace is how long a device that answered may then not answer before
// wait-idle gives up on it and lets the update go on: past FlipSight's 30 s
// a disconnected bot has lost its match anyway, and a moment's network
// failure must not let an update through while a match runs.
const downGrace = 60 * time.Second

// idleStatus is the part of flipbot's /api/status that wait-idle reads.
type idleStatus struct {
	State   string      `json:"state"`
	Matches []idleMatch `json:"matches"`
}

// idleMatch is one running match as /api/status lists it.
type idleMatch struct {
	ID       int64  `json:"id"`
	Human    bool   `json:"human"`
	Mode     string `json:"game_mode"`
	Status   string `json:"status"`
	Opponent string `json:"opponent"`
}

func (m idleMatch) String() string {
	opp := m.Opponent
	switch {
	case m.Human:
		opp = "a person"
	case opp == "":
		opp = "?"
	}
	s := fmt.Sprintf("match #%d vs %s", m.ID, printable(opp, 40))
	if m.Mode != "" {
		s += " (" + printable(m.Mode, 16) + ")"
	}
	return s
}

// printable is s, from the device, fit for a terminal: control
// characters (escape sequences) dropped, at most n runes.
func printable(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if n == 0 {
			b.WriteString("…")
			break
		}
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			n--
		}
	}
	return b.String()
}

// errUnreachable marks a device that did not answer at all.
var errUnreachable = errors.New("unreachable")

// cmdWaitIdle waits until the device's bot plays no match, so that a gok
// update (which reboots the device) forfeits none by disconnect.
func cmdWaitIdle(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("wait-idle", flag.ContinueOnError)
	base := fs.String("url", "", "flipbot's pages on the device, e.g. http://flipbot:8080 (its /api/status is read)")
	timeout := fs.Duration("timeout", 30*time.Minute, "give up (exit 1) when a match still runs after this long")
	poll := fs.Duration("poll", 2*time.Second, "how often to read the status")
	pos, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if *base == "" || len(pos) > 0 || *poll <= 0 || *timeout <= 0 {
		fmt.Fprintln(stderr, "usage: flipbot-image wait-idle -url http://HOST:PORT [-timeout 30m] [-poll 2s]")
		return errUsage
	}
	u, err := statusURL(*base)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-image wait-idle: %v\n", err)
		return errUsage
	}
	w := waiter{url: u, client: &http.Client{Timeout: 10 * time.Second}, poll: *poll, timeout: *timeout,
		reportEvery: waitReportEvery, downGrace: downGrace, now: time.Now, out: stdout}
	return w.wait(ctx)
}

// statusURL is /api/status under the page URL base.
func statusURL(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("-url %q: want http://HOST[:PORT]", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/status"
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// waiter polls a device's status until no match runs.
type waiter struct {
	url         string
	client      *http.Client
	poll        time.Duration
	timeout     time.Duration
	reportEvery time.Duration
	downGrace   time.Duration
	now         func() time.Time
	out         io.Writer
}

// wait returns nil when the device plays no match, or when it does not
// answer at all (then nothing runs there to protect: the update goes on,
// with a warning); an error when a match still runs at the timeout, or
// when something answers that is not flipbot's status.
func (w waiter) wait(ctx context.Context) error {
	start := w.now()
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	var reported, downSince time.Time
	lastSeen := ""
	for first := true; ; first = false {
		st, err := w.status(ctx)
		if ctx.Err() != nil {
			return w.ended(ctx, lastSeen)
		}
		switch {
		case errors.Is(err, errUnreachable) && first:
			fmt.Fprintf(w.out, "warning: %v: no match to wait for there; updating\n", err)
			return nil
		case errors.Is(err, errUnreachable):
			// It answered before, with a match running: a moment's
			// network failure is waited out; a device down for longer
			// has no match left to protect.
			now := w.now()
			if downSince.IsZero() {
				downSince = now
			}
			if now.Sub(downSince) >= w.downGrace {
				fmt.Fprintf(w.out, "warning: %v for %s: updating\n", err, now.Sub(downSince).Round(time.Second))
				return nil
			}
		case err != nil:
			return err
		default:
			downSince = time.Time{}
		}
		if err == nil && len(st.Matches) == 0 {
			if !first {
				fmt.Fprintf(w.out, "no match runs on the device (waited %s): updating\n", w.now().Sub(start).Round(time.Second))
			}
			return nil
		}
		if err == nil {
			names := make([]string, len(st.Matches))
			for i, m := range st.Matches {
				names[i] = m.String()
			}
			seen := strings.Join(names, ", ")
			if now := w.now(); seen != lastSeen || now.Sub(reported) >= w.reportEvery {
				fmt.Fprintf(w.out, "waiting for %s to end… (UPDATE_NOW=1 updates at once)\n", seen)
				reported = now
			}
			lastSeen = seen
		}
		select {
		case <-ctx.Done():
			return w.ended(ctx, lastSeen)
		case <-time.After(w.poll):
		}
	}
}

// ended is wait's error when ctx ends: the timeout, or the owner's Ctrl-C.
func (w waiter) ended(ctx context.Context, running string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s still running after %s: not updating (UPDATE_NOW=1 updates at once)", running, w.timeout)
	}
	return ctx.Err()
}

// status reads and decodes the device's /api/status. A failure to connect
// or a timeout is errUnreachable; an answer that is not flipbot's status
// is an error of its own.
func (w waiter) status(ctx context.Context) (idleStatus, error) {
	var st idleStatus
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url, nil)
	if err != nil {
		return st, fmt.Errorf("%s: %w", w.url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := w.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return st, fmt.Errorf("%s: %w", w.url, ctx.Err())
		}
		return st, fmt.Errorf("%s does not answer (%w: %v)", w.url, errUnreachable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("%s answers %s, not flipbot's status: check APP_URL (or UPDATE_NOW=1 updates at once)", w.url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxStatusBytes+1))
	if err != nil {
		return st, fmt.Errorf("%s does not answer (%w: %v)", w.url, errUnreachable, err)
	}
	if len(b) > maxStatusBytes {
		return st, fmt.Errorf("%s: the status is over %d bytes, not flipbot's: check APP_URL (or UPDATE_NOW=1 updates at once)", w.url, maxStatusBytes)
	}
	st, err = decodeStatus(b)
	if err != nil {
		return st, fmt.Errorf("%s: %w: check APP_URL (or UPDATE_NOW=1 updates at once)", w.url, err)
	}
	return st, nil
}

// decodeStatus decodes the part of /api/status wait-idle reads; a body
// without a state or a matches list is not flipbot's status.
func decodeStatus(b []byte) (idleStatus, error) {
	var st idleStatus
	if err := json.Unmarshal(b, &st); err != nil {
		return idleStatus{}, fmt.Errorf("not flipbot's status (%v)", err)
	}
	if st.State == "" || st.Matches == nil {
		return idleStatus{}, errors.New("not flipbot's status (no state or matches)")
	}
	return st, nil
}
