package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMoveLabel(t *testing.T) {
	assert.Equal(t, "19. b1", MoveLabel(19, "b1"))
	assert.Equal(t, "40. pass", MoveLabel(40, "pass"))
}

// TestWorstString: a worst move that lost less than an inaccuracy reads
// "no mistake", not "2. d7 −0.0 (best)".
func TestWorstString(t *testing.T) {
	tests := []struct {
		name  string
		w     Worst
		want  string
		shown bool
	}{
		{"no counted move", Worst{}, "-", false},
		{"the best move every time", Worst{Ply: 2, Square: "d7", Loss: 0}, NoMistake, false},
		{"just under an inaccuracy", Worst{Ply: 9, Square: "c4", Loss: InaccuracyLoss - 0.1}, NoMistake, false},
		{"an inaccuracy", Worst{Ply: 9, Square: "c4", Loss: InaccuracyLoss}, "9. c4 −1.0 (inaccuracy)", true},
		{"a mistake", Worst{Ply: 19, Square: "b1", Loss: 6}, "19. b1 −6.0 (mistake)", true},
		{"a blunder", Worst{Ply: 33, Square: "a8", Loss: 22.5}, "33. a8 −22.5 (blunder)", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.w.String())
			assert.Equal(t, tc.shown, tc.w.Shown())
		})
	}
}

// TestDiscsText: black's discs first, the bot's colour named.
func TestDiscsText(t *testing.T) {
	assert.Equal(t, "25–0 (bot black)", DiscsText([2]int{25, 0}, 1))
	assert.Equal(t, "25–0 (bot white)", DiscsText([2]int{25, 0}, 2))
	assert.Equal(t, "25–0", DiscsText([2]int{25, 0}, 0))
}
