// Package browser drives a headless Chromium for the page tests: the
// Chrome DevTools Protocol over a pipe (--remote-debugging-pipe: commands
// on the browser's fd 3, answers and events on its fd 4, each a JSON
// message ended by a NUL byte), with no library and no network port. A
// test opens a page, presses keys, clicks, reads the page with
// JavaScript and takes screenshots; the page's own Content Security
// Policy applies as in any browser.
//
// Only _test.go files import it. It imports the standard library only.
package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Path returns the Chromium binary on PATH ("" when there is none).
func Path() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is one headless Chromium with one page. Its methods are safe to
// call from one goroutine at a time.
type Browser struct {
	cmd     *exec.Cmd
	send    *os.File // the browser's fd 3
	recv    *os.File // the browser's fd 4
	session string
	timeout time.Duration

	mu      sync.Mutex
	nextID  int
	waiting map[int]chan message
	events  chan message
	readErr error
	done    chan struct{}
	stderr  bytes.Buffer
}

type message struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *protoError     `json:"error,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

type protoError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Start runs bin headless with a page of width×height CSS pixels, in a
// fresh profile under dataDir. Close ends it.
func Start(bin, dataDir string, width, height int) (*Browser, error) {
	toBrowserR, toBrowserW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	fromBrowserR, fromBrowserW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-zygote",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--remote-debugging-pipe", "--user-data-dir="+dataDir, fmt.Sprintf("--window-size=%d,%d", width, height),
		"about:blank")
	// No session bus in a container: without this chromium waits for one.
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=/dev/null")
	cmd.ExtraFiles = []*os.File{toBrowserR, fromBrowserW}
	b := &Browser{cmd: cmd, send: toBrowserW, recv: fromBrowserR, timeout: 30 * time.Second,
		waiting: map[int]chan message{}, events: make(chan message, 256), done: make(chan struct{})}
	cmd.Stderr = &b.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start chromium: %w", err)
	}
	toBrowserR.Close()
	fromBrowserW.Close()
	go b.read()
	if err := b.attach(width, height); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// read dispatches the browser's messages until its pipe closes.
func (b *Browser) read() {
	defer close(b.done)
	r := bufio.NewReaderSize(b.recv, 1<<20)
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("chromium's pipe: %w", err)
			for id, c := range b.waiting {
				close(c)
				delete(b.waiting, id)
			}
			b.mu.Unlock()
			return
		}
		var m message
		if err := json.Unmarshal(raw[:len(raw)-1], &m); err != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			c := b.waiting[m.ID]
			delete(b.waiting, m.ID)
			b.mu.Unlock()
			if c != nil {
				c <- m
			}
			continue
		}
		select {
		case b.events <- m:
		default: // nobody waits for old events
		}
	}
}

// Call sends a DevTools command to the page (or, when the browser is not
// attached yet, to the browser) and decodes its result into out (nil:
// ignored).
func (b *Browser) Call(method string, params any, out any) error {
	return b.call(b.session, method, params, out)
}

func (b *Browser) call(session, method string, params any, out any) error {
	if params == nil {
		params = struct{}{}
	}
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	b.mu.Lock()
	if b.readErr != nil {
		err := b.readErr
		b.mu.Unlock()
		return err
	}
	b.nextID++
	id := b.nextID
	c := make(chan message, 1)
	b.waiting[id] = c
	b.mu.Unlock()
	msg, err := json.Marshal(message{ID: id, Method: method, Params: p, SessionID: session})
	if err != nil {
		return err
	}
	if _, err := b.send.Write(append(msg, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	t := time.NewTimer(b.timeout)
	defer t.Stop()
	select {
	case m, ok := <-c:
		if !ok {
			return fmt.Errorf("%s: chromium has gone: %s", method, b.stderr.String())
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if out != nil {
			return json.Unmarshal(m.Result, out)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("%s: no answer in %s", method, b.timeout)
	}
}

// attach finds the page, attaches to it and sets its size.
func (b *Browser) attach(width, height int) error {
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	deadline := time.Now().Add(b.timeout)
	var page string
	for page == "" {
		if err := b.call("", "Target.getTargets", nil, &targets); err != nil {
			return err
		}
		for _, ti := range targets.TargetInfos {
			if ti.Type == "page" {
				page = ti.TargetID
			}
		}
		if page == "" {
			if time.Now().After(deadline) {
				return errors.New("chromium shows no page")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": page, "flatten": true}, &att); err != nil {
		return err
	}
	b.session = att.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable"} {
		if err := b.Call(m, nil, nil); err != nil {
			return err
		}
	}
	return b.Call("Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

// Navigate opens url and waits for its load event.
func (b *Browser) Navigate(url string) error {
	b.drain()
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.Call("Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate %s: %s", url, nav.ErrorText)
	}
	return b.waitEvent("Page.loadEventFired")
}

// drain drops the events received so far.
func (b *Browser) drain() {
	for {
		select {
		case <-b.events:
		default:
			return
		}
	}
}

func (b *Browser) waitEvent(method string) error {
	t := time.NewTimer(b.timeout)
	defer t.Stop()
	for {
		select {
		case m := <-b.events:
			if m.Method == method {
				return nil
			}
		case <-b.done:
			return fmt.Errorf("waiting for %s: chromium has gone", method)
		case <-t.C:
			return fmt.Errorf("no %s in %s", method, b.timeout)
		}
	}
}

// keyCodes are the Windows virtual key codes of the keys Key knows.
var keyCodes = map[string]int{
	"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40, "Home": 36, "End": 35,
	"Enter": 13, "Escape": 27, "Tab": 9, " ": 32,
}

// Key presses and releases key (a KeyboardEvent.key name: ArrowLeft,
// ArrowRight, Home, End, Enter, Escape, Tab, or one character) on the page.
func (b *Browser) Key(key string) error {
	code := keyCodes[key]
	down := map[string]any{"type": "rawKeyDown", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
	if code == 0 && len(key) == 1 {
		down = map[string]any{"type": "keyDown", "key": key, "text": key}
	}
	if err := b.Call("Input.dispatchKeyEvent", down, nil); err != nil {
		return err
	}
	up := map[string]any{"type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
	return b.Call("Input.dispatchKeyEvent", up, nil)
}

// Click clicks the left mouse button at (x, y), CSS pixels from the top
// left of the page's viewport.
func (b *Browser) Click(x, y float64) error {
	for _, typ := range []string{"mouseMoved", "mousePressed", "mouseReleased"} {
		if err := b.Call("Input.dispatchMouseEvent",
			map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}, nil); err != nil {
			return err
		}
	}
	return nil
}

// Eval evaluates a JavaScript expression in the page and decodes its value
// (JSON-serialisable) into out.
func (b *Browser) Eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.Call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if d := res.ExceptionDetails; d != nil {
		return fmt.Errorf("evaluate %q: %s %s", expr, d.Text, d.Exception.Description)
	}
	if out == nil {
		return nil
	}
	if len(res.Result.Value) == 0 {
		return fmt.Errorf("evaluate %q: no value", expr)
	}
	return json.Unmarshal(res.Result.Value, out)
}

// Rect is an element's box in CSS pixels, in the viewport.
type Rect struct {
	X, Y, Width, Height float64
}

// Center returns the middle of r.
func (r Rect) Center() (x, y float64) { return r.X + r.Width/2, r.Y + r.Height/2 }

// Rect returns the bounding box of the first element matching a CSS
// selector; an error when there is none.
func (b *Browser) Rect(selector string) (Rect, error) {
	sel, _ := json.Marshal(selector)
	var r *Rect
	err := b.Eval(`(function(){var e=document.querySelector(`+string(sel)+`);if(!e)return null;`+
		`var r=e.getBoundingClientRect();return {X:r.x,Y:r.y,Width:r.width,Height:r.height};})()`, &r)
	if err != nil {
		return Rect{}, err
	}
	if r == nil {
		return Rect{}, fmt.Errorf("no element %s", selector)
	}
	return *r, nil
}

// Screenshot returns the viewport as an image, and its PNG bytes.
func (b *Browser) Screenshot() (image.Image, []byte, error) {
	var res struct {
		Data string `json:"data"`
	}
	if err := b.Call("Page.captureScreenshot", map[string]any{"format": "png"}, &res); err != nil {
		return nil, nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		return nil, nil, fmt.Errorf("screenshot: %w", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("screenshot: %w", err)
	}
	return img, raw, nil
}

// Close ends the browser and waits for it.
func (b *Browser) Close() error {
	_ = b.call("", "Browser.close", nil, nil)
	b.send.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	waited := make(chan error, 1)
	go func() { waited <- b.cmd.Wait() }()
	select {
	case err := <-waited:
		b.recv.Close()
		return err
	case <-ctx.Done():
		_ = b.cmd.Process.Kill()
		b.recv.Close()
		return <-waited
	}
}
