package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStaticServesAssetsOnly(t *testing.T) {
	h := newTestHandler(t)
	for path, want := range map[string]int{
		"/static/": http.StatusNotFound, "/static/layout.html": http.StatusNotFound, "/static/status.html": http.StatusNotFound,
		"/static/style.css": http.StatusOK, "/static/board.css": http.StatusOK, "/static/refresh.js": http.StatusOK, "/static/replay.js": http.StatusOK,
	} {
		status, body := h.get(path)
		assert.Equal(t, want, status, path)
		assert.NotContains(t, body, "layout.html", "%s lists the templates", path)
		assert.NotContains(t, body, "{{", "%s shows a template", path)
	}
}
