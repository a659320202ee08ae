package web

import (
	"embed"
	"fmt"
	"html/template"
	"time"

	"flipbot.dev/flipbot/appliance/ratings"
	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/config"
)

// assets are the page templates and the static files the pages load.
//
//go:embed *.html *.css *.js
var assets embed.FS

// pageData is what every page template gets.
type pageData struct {
	Title       string
	St          state.Status
	CSRF        string
	Notice      string
	NoticeClass string
	Refresh     bool
	Back        string
	// settings page
	Set       settings.Settings
	Modes     []string
	Displays  []string
	Egaroucid bool
	// status page
	Ratings *ratingGraph
	Live    liveView
}

func parseTemplates() (*template.Template, error) {
	funcs := template.FuncMap{
		"cells":      boardCells,
		"clock":      formatClock,
		"colorName":  colorName,
		"tokenText":  tokenText,
		"bytes":      formatBytes,
		"uptime":     formatUptime,
		"when":       func(t time.Time) string { return t.Format("2006-01-02 15:04") },
		"list":       func(s ...string) []string { return s },
		"minus1":     func(n int) int { return n - 1 },
		"plus1":      func(n int) int { return n + 1 },
		"plus4":      func(n int) int { return n + 4 },
		"plus12":     func(n int) int { return n + 12 },
		"plus16":     func(n int) int { return n + 16 },
		"minus4":     func(n int) int { return n - 4 },
		"secs":       func(ms int64) string { return fmt.Sprintf("%.1f", float64(ms)/1000) },
		"signed":     func(v float64) string { return fmt.Sprintf("%+.1f", v) },
		"lossMark":   lossMark,
		"gameLoss":   gameLoss,
		"maxRatings": func() int { return ratings.MaxSamples },
		"tally":      func(label string, rows []record.Tally, more int) tallyView { return tallyView{label, rows, more} },
		"deref":      func(f *float64) float64 { return *f },
		"ggf":        record.FormatGGF.Expresses,
		"discs":      func(d [2]int, me int) string { return record.DiscsText(d, me) },
		"noMistake":  func() string { return record.NoMistake },
	}
	t, err := template.New("pages").Funcs(funcs).ParseFS(assets, "*.html")
	if err != nil {
		return nil, fmt.Errorf("parse page templates: %w", err)
	}
	return t, nil
}

// boardCells returns the CSS classes of a leg's squares, a1 first.
func boardCells(l state.Leg) []string {
	if l.BoardSize != 8 && l.BoardSize != 10 {
		return nil // flipsight refuses other sizes; never allocate from one
	}
	n := l.BoardSize * l.BoardSize
	out := make([]string, n)
	blocked := map[int]bool{}
	for _, b := range l.Blocked {
		blocked[b] = true
	}
	for i := range n {
		c := "e"
		switch {
		case blocked[i]:
			c = "x"
		case i < len(l.Board) && l.Board[i] == 1:
			c = "b"
		case i < len(l.Board) && l.Board[i] == 2:
			c = "w"
		}
		if i == l.LastMove {
			c += " last"
		}
		out[i] = c
	}
	return out
}

func formatClock(ms int64) string {
	if ms < 0 {
		ms = 0
	}
	s := ms / 1000
	return fmt.Sprintf("%d:%02d.%d", s/60, s%60, (ms%1000)/100)
}

func colorName(c int) string {
	switch c {
	case 1:
		return "black"
	case 2:
		return "white"
	}
	return "?"
}

func tokenText(s state.TokenSource) string {
	switch s {
	case state.TokenEnv:
		return "from the environment (" + config.TokenEnv + ")"
	case state.TokenStored:
		return "saved on this device"
	case state.TokenMemory:
		return "entered, but not saved (storage problem): enter it again after a restart"
	}
	return "none"
}

func formatBytes(b uint64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", b>>10)
}

func formatUptime(s int64) string {
	d := time.Duration(s) * time.Second
	if d >= 24*time.Hour {
		return fmt.Sprintf("%dd %s", d/(24*time.Hour), (d % (24 * time.Hour)).String())
	}
	return d.String()
}

// tallyView is one summary table of the games page.
type tallyView struct {
	Label string
	Rows  []record.Tally
	More  int
}

// lossView is the games list's analysis of one game: the bot's mean loss
// per move and its worst move (black's for games without the bot).
type lossView struct {
	ID    string
	Mean  float64
	Worst record.Worst
	Class string
}

// gameLoss returns the analysis figures of a game's row; nil when the
// game is not analysed.
func gameLoss(s record.Summary) *lossView {
	if s.Analysis == nil {
		return nil
	}
	mean, _, worst := s.Analysis.Side(s.MyColor)
	return &lossView{ID: s.ID, Mean: mean, Worst: worst, Class: record.LossClass(worst.Loss)}
}
