package appliance

import (
	"io/fs"
	"net/http"
	"path"
)

// staticAssets are the files /static/ serves: the pages' style and script.
// Everything else under web/ (the page templates) and every directory is
// 404: no listing, no template source.
var staticAssets = map[string]bool{"style.css": true, "refresh.js": true, "replay.js": true}

// staticHandler serves the assets of web/ under /static/ and nothing else.
func staticHandler() http.Handler {
	web, _ := fs.Sub(webFS, "web")
	files := http.FileServerFS(web)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.URL.Path)
		if !staticAssets[name] {
			http.NotFound(w, r)
			return
		}
		r.URL.Path = name
		files.ServeHTTP(w, r)
	})
}
