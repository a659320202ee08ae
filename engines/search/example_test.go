package search_test

import (
	"context"
	"fmt"
	"time"

	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/engines/search"
)

// One engine serves every leg: a shared pool keeps the threads of all
// concurrent searches within the machine's cores.
func Example() {
	pool := search.NewPool(2)
	eng := search.New(search.Options{Threads: 2, HashMB: 16, Pool: pool})
	defer eng.Close()

	pos := othello.New(othello.Std)
	res, err := eng.Move(context.Background(), engines.Request{
		Position:  pos,
		Remaining: 60 * time.Second,
		Budget:    100 * time.Millisecond,
	})
	if err != nil {
		fmt.Println("no move:", err)
		return
	}
	fmt.Println(pos.Legal().Has(res.Move))
	// Output: true
}
