package bot

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"flipbot.dev/flipbot/engines"
)

func TestAwaitAnswer(t *testing.T) {
	t.Parallel()
	const wait = 500 * time.Millisecond
	answer := engineAnswer{res: engines.Result{Move: 19}}
	tests := []struct {
		name string
		// answerAt is when the engine answers (0: never); doneAt when the
		// leg changes (0: never).
		answerAt, doneAt time.Duration
		want             awaitResult
		wantErr          bool
	}{
		{name: "answer in time", answerAt: wait / 2, want: answered},
		{name: "an error in time", answerAt: wait / 2, want: answered, wantErr: true},
		{name: "no answer", want: timedOut},
		{name: "answer too late", answerAt: 2 * wait, want: timedOut},
		{name: "leg changed", doneAt: wait / 4, answerAt: wait / 2, want: dropped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ch := make(chan engineAnswer, 1)
				done := make(chan struct{})
				if tt.answerAt > 0 {
					a := answer
					if tt.wantErr {
						a = engineAnswer{err: errors.New("engine failed")}
					}
					time.AfterFunc(tt.answerAt, func() { ch <- a })
				}
				if tt.doneAt > 0 {
					time.AfterFunc(tt.doneAt, func() { close(done) })
				}
				timer := time.NewTimer(wait)
				defer timer.Stop()
				start := time.Now()
				a, got := awaitAnswer(done, ch, timer.C)
				assert.Equal(t, tt.want, got)
				switch got {
				case answered:
					assert.Equal(t, tt.answerAt, time.Since(start))
					assert.Equal(t, tt.wantErr, a.err != nil)
				case timedOut:
					assert.Equal(t, wait, time.Since(start))
				case dropped:
					assert.Equal(t, tt.doneAt, time.Since(start))
				}
			})
		})
	}
}

// TestAwaitAnswerTakesAnAnswerThatCameWithTheTimer: when the waiting
// goroutine runs only after both the answer and the timer are ready (with
// fewer cores than busy goroutines), the answer is played, not a fallback.
// A plain select would pick either at random: 64 rounds leave it 2^-64.
func TestAwaitAnswerTakesAnAnswerThatCameWithTheTimer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const wait = 100 * time.Millisecond
		for round := range 64 {
			ch := make(chan engineAnswer, 1)
			timer := time.NewTimer(wait)
			ch <- engineAnswer{res: engines.Result{Move: round}}
			time.Sleep(2 * wait) // both are ready before the wait begins
			a, got := awaitAnswer(nil, ch, timer.C)
			if !assert.Equal(t, answered, got, "round %d", round) {
				return
			}
			assert.Equal(t, round, a.res.Move)
		}
	})
}
