package eval

import (
	"math/rand/v2"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/engines/othello"
)

func TestEmbeddedWeightsScoreStartsSanely(t *testing.T) {
	set, err := Embedded()
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(8, 8))
	for _, m := range othello.AllModes() {
		t.Run(m.String(), func(t *testing.T) {
			score := func(pos othello.Position) int {
				p, o := pos.Discs(pos.Turn), pos.Discs(pos.Turn.Opponent())
				if m.Size() == 10 {
					return set.Eval10(m).Score10(p, o)
				}
				return set.Eval8(m).Score8(p.Lo, o.Lo, othello.ReversiCap-pos.Placed.Of(pos.Turn), othello.ReversiCap-pos.Placed.Of(pos.Turn.Opponent()))
			}
			_, trained := set.Eval8(m).(*Pattern)
			if m.Size() == 10 {
				_, trained = set.Eval10(m).(*Pattern)
			}
			require.True(t, trained, "the embedded evaluation is the pattern one")
			sum, wild := 0, 0
			const n = 200
			for i := 0; i < n; i++ {
				start, _ := othello.RandomOpening(m, r)
				s := score(start)
				assert.Less(t, abs(s), m.Squares()*Disc, "start %d", i)
				// A 12-disc start is far from decided.
				if abs(s) > 30*Disc {
					wild++
				}
				sum += s
			}
			// Random starts can be lopsided: in the generation-2 std
			// self-play data 513 of 2,500 12-disc starts (20.5 %, chunks
			// 100–109) ended beyond ±30 discs between depth-6 players with
			// exact endgames, and generation 2 scores 13 of these 200
			// starts so. A tenth still catches a fit that went wild.
			assert.LessOrEqual(t, wild, n/10, "starts scored beyond ±30 discs")
			// Black (to move) neither wins nor loses every start by much
			// on average.
			assert.Less(t, abs(sum/n), 10*Disc, "mean score of %d starts", n)
			if m != othello.Reversi {
				assert.Less(t, abs(score(othello.New(m))), 10*Disc, "the initial four")
			}
		})
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestLoadSetErrors(t *testing.T) {
	good, err := randomWeights(t, othello.Std, 1).MarshalBinary()
	require.NoError(t, err)
	fsys := fstest.MapFS{"w/std.fbpw": {Data: good}}
	_, err = loadSet(fsys, "w", everyMode)
	assert.ErrorContains(t, err, "no w/anti.fbpw")
	fsys = fstest.MapFS{}
	for _, m := range othello.AllModes() {
		fsys["w/"+WeightsFile(m)] = &fstest.MapFile{Data: good}
	}
	_, err = loadSet(fsys, "w", everyMode)
	assert.ErrorContains(t, err, "holds std weights", "a file under another mode's name")
	fsys["w/std.fbpw"] = &fstest.MapFile{Data: good[:20]}
	_, err = loadSet(fsys, "w", everyMode)
	assert.ErrorIs(t, err, ErrCorrupt)
}

func TestByName(t *testing.T) {
	set, err := ByName(NameBaseline)
	require.NoError(t, err)
	assert.IsType(t, &baseline8{}, set.Eval8(othello.Std))
	assert.IsType(t, &baseline10{}, set.Eval10(othello.Octagon))
	_, err = ByName("magic")
	assert.ErrorContains(t, err, `unknown evaluation "magic"`)

	for _, name := range []string{NamePattern, NameBest, ""} {
		set, err := ByName(name)
		require.NoError(t, err, name)
		for _, m := range othello.AllModes() {
			trained := name == NamePattern || TrainedIsStronger(m)
			var ev any = set.Eval8(m)
			if m.Size() == 10 {
				ev = set.Eval10(m)
			}
			_, isPattern := ev.(*Pattern)
			assert.Equal(t, trained, isPattern, "%q in %s: trained", name, m)
		}
	}
	for _, m := range othello.AllModes() {
		assert.True(t, TrainedIsStronger(m), "%s: the trained weights won their 100-pair match", m)
	}
}
