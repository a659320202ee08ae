package arenatest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/arena/arenatest"
	"flipbot.dev/flipbot/flipsight"
)

// A bot's client behind a front whose next answer is a 503 with
// Retry-After.
func ExampleFront() {
	a, err := arena.New(arena.Config{Bots: []arena.BotConfig{{Name: "me", Token: "fsbm_EXAMPLETOKEN"}}})
	if err != nil {
		panic(err)
	}
	defer a.Close()
	f := arenatest.NewFront(a.Handler(), arenatest.Options{Token: "fsbm_EXAMPLETOKEN"})
	ts := httptest.NewServer(f)
	defer ts.Close()
	tok, _ := flipsight.NewToken("fsbm_EXAMPLETOKEN")
	c, _ := flipsight.NewClient(flipsight.Config{APIURL: ts.URL + arena.APIPath, Token: tok})

	f.Inject(func(p *arenatest.Plan) {
		p.Requests = append(p.Requests, arenatest.Answer{Status: http.StatusServiceUnavailable, RetryAfter: 2 * time.Second})
	})
	_, err = c.Poll(context.Background(), nil)
	e := flipsight.AsAPIError(err)
	fmt.Println(e.Status, e.Code, e.RetryAfter)
	resp, err := c.Poll(context.Background(), nil)
	fmt.Println(resp.Bot.Name, err)
	// Output:
	// 503 bot match storage unavailable 2s
	// me <nil>
}
