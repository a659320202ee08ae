package web

import (
	"net/http"
	"path"
)

// staticAsset reports whether /static/ serves name: the pages' style and
// scripts. Everything else (the page templates) and every directory is
// 404: no listing, no template source.
func staticAsset(name string) bool {
	switch name {
	case "style.css", "refresh.js", "replay.js":
		return true
	}
	return false
}

// staticHandler serves the static assets under /static/ and nothing else.
func staticHandler() http.Handler {
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.URL.Path)
		if !staticAsset(name) {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = name
		files.ServeHTTP(w, r)
	})
}
