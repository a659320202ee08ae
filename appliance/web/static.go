package web

import (
	"net/http"
	"path"
	"strings"
	"time"

	"flipbot.dev/flipbot/internal/boardview"
)

// staticAsset reports whether /static/ serves name: the pages' style and
// scripts. Everything else (the page templates) and every directory is
// 404: no listing, no template source.
func staticAsset(name string) bool {
	switch name {
	case "style.css", "board.css", "refresh.js", "replay.js":
		return true
	}
	return false
}

// staticHandler serves the static assets under /static/ and nothing else;
// board.css is internal/boardview's, the boards' style shared with the
// arena.
func staticHandler() http.Handler {
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.URL.Path)
		if !staticAsset(name) {
			http.NotFound(w, r)
			return
		}
		if name == "board.css" {
			w.Header().Set("Content-Type", "text/css; charset=utf-8")
			http.ServeContent(w, r, name, time.Time{}, strings.NewReader(boardview.CSS))
			return
		}
		r.URL.Path = name
		files.ServeHTTP(w, r)
	})
}
