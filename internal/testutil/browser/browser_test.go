package browser

import (
	"image/color"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const page = `<!doctype html><html><body style="margin:0;background:#fff">
<div id="box" style="position:absolute;left:10px;top:20px;width:50px;height:40px;background:#f00"></div>
<p id="out">none</p>
<script>
document.addEventListener("keydown", function (e) { document.getElementById("out").textContent = e.key; });
document.getElementById("box").addEventListener("click", function () { document.getElementById("out").textContent = "clicked"; });
</script></body></html>`

func TestBrowser(t *testing.T) {
	bin := Path()
	if bin == "" {
		t.Skip("chromium not installed (apt-get install -y chromium)")
	}
	if testing.Short() && os.Getenv("FLIPBOT_BROWSER_TESTS") != "1" {
		t.Skip("a browser start takes seconds; skipped with -short unless FLIPBOT_BROWSER_TESTS=1")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(page)) }))
	defer srv.Close()
	b, err := Start(bin, t.TempDir(), 400, 300)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.Navigate(srv.URL))
	read := func() string {
		var s string
		require.NoError(t, b.Eval(`document.getElementById("out").textContent`, &s))
		return s
	}
	for _, k := range []string{"ArrowRight", "End", "x"} {
		require.NoError(t, b.Key(k))
		assert.Equal(t, k, read(), "the page saw the key")
	}
	r, err := b.Rect("#box")
	require.NoError(t, err)
	assert.Equal(t, Rect{X: 10, Y: 20, Width: 50, Height: 40}, r)
	require.NoError(t, b.Click(r.Center()))
	assert.Equal(t, "clicked", read())
	img, raw, err := b.Screenshot()
	require.NoError(t, err)
	assert.Equal(t, 400, img.Bounds().Dx())
	assert.Equal(t, 300, img.Bounds().Dy())
	assert.NotEmpty(t, raw)
	c := color.RGBAModel.Convert(img.At(30, 40)).(color.RGBA)
	assert.True(t, c.R > 200 && c.G < 50, "the box's pixel is %v, want red", c)
	_, err = b.Rect("#nothing")
	assert.Error(t, err, "a missing element has no box")
}
