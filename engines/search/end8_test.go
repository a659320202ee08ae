package search

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

// TestStabilityCut8IsABound checks the stability cutoff against a plain
// minimax: whenever it cuts at some alpha, the position's exact score is at
// most the bound it returns (and the bound is at most alpha). Positions at
// 4–10 empties of random std and anti games, every alpha from the
// threshold up.
func TestStabilityCut8IsABound(t *testing.T) {
	t.Parallel()
	per := 60
	if testing.Short() {
		per = 20
	}
	for _, m := range []othello.Mode{othello.Std, othello.Anti} {
		cuts := 0
		for i := range per {
			pos := randomGame(m, 4+i%7, uint64(i)*7919+uint64(m)*131+5)
			th := &thread{anti: m == othello.Anti}
			p, o := pos.Discs(pos.Turn).Lo, pos.Discs(pos.Turn.Opponent()).Lo
			n := 64 - pc(p|o)
			exact := -1000
			for alpha := stabilityThreshold[n]; alpha <= 64; alpha++ {
				up, cut := th.stabilityCut8(p, o, alpha, n)
				if !cut {
					continue
				}
				if exact == -1000 {
					exact = refSolve(pos)
				}
				cuts++
				require.LessOrEqual(t, up, alpha, "%s alpha %d\n%s", m, alpha, pos)
				require.LessOrEqual(t, exact, up, "%s: the cut's bound is below the score (alpha %d)\n%s", m, alpha, pos)
			}
		}
		assert.Positive(t, cuts, "%s: no position was cut; the test proves nothing", m)
		t.Logf("%s: %d cuts", m, cuts)
	}
}
