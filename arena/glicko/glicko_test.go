package glicko

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGlickmansExample is the worked example of "Example of the Glicko-2
// system": a player rated 1500, RD 200, σ 0.06 beats a 1400 (RD 30) and
// loses to a 1550 (RD 100) and a 1700 (RD 300), τ 0.5; the paper's
// answer is 1464.06, RD 151.52, σ 0.05999. The paper rounds as it goes
// (μ' = −0.2069, φ' = 0.8722 on the Glicko-2 scale, then ×173.7178), so
// the unrounded rating is 1464.05 and σ' is 0.059996, which the paper
// cuts to five places: the test holds the paper's own printed
// intermediates exactly and its final figures to that rounding.
func TestGlickmansExample(t *testing.T) {
	p := Player{Rating: 1500, RD: 200, Volatility: 0.06}
	got, err := Update(p, []Result{
		{Opponent: Player{Rating: 1400, RD: 30, Volatility: 0.06}, Score: Win},
		{Opponent: Player{Rating: 1550, RD: 100, Volatility: 0.06}, Score: Loss},
		{Opponent: Player{Rating: 1700, RD: 300, Volatility: 0.06}, Score: Loss},
	}, 0.5)
	require.NoError(t, err)
	round := func(x float64, places int) float64 {
		f := math.Pow(10, float64(places))
		return math.Round(x*f) / f
	}
	assert.Equal(t, -0.2069, round((got.Rating-1500)/scale, 4), "μ'")
	assert.Equal(t, 0.8722, round(got.RD/scale, 4), "φ'")
	assert.Equal(t, 0.05999, math.Floor(got.Volatility*1e5)/1e5, "σ' to five places")
	assert.InDelta(t, 1464.06, got.Rating, 0.01)
	assert.InDelta(t, 151.52, got.RD, 0.01)
}

// TestOneGame: after one game between equals the winner gains what the
// loser loses, both RDs shrink, and a draw moves nothing.
func TestOneGame(t *testing.T) {
	p := Player{Rating: 1200, RD: 300, Volatility: 0.06}
	tests := []struct {
		name  string
		score float64
		sign  float64
	}{
		{"a win raises the rating", Win, 1},
		{"a draw between equals keeps it", Draw, 0},
		{"a loss lowers it", Loss, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Update(p, []Result{{Opponent: p, Score: tc.score}}, DefaultTau)
			require.NoError(t, err)
			other, err := Update(p, []Result{{Opponent: p, Score: 1 - tc.score}}, DefaultTau)
			require.NoError(t, err)
			d := got.Rating - p.Rating
			assert.Equal(t, tc.sign, sign(d), "change %.2f", d)
			assert.InDelta(t, -d, other.Rating-p.Rating, 1e-9, "zero sum between equals")
			assert.Less(t, got.RD, p.RD)
		})
	}
}

func sign(x float64) float64 {
	switch {
	case math.Abs(x) < 1e-9:
		return 0
	case x > 0:
		return 1
	}
	return -1
}

// TestIdleWidensRD: a period without games widens the RD by the
// volatility and keeps the rating (step 6 alone).
func TestIdleWidensRD(t *testing.T) {
	p := Player{Rating: 1500, RD: 50, Volatility: 0.06}
	got, err := Update(p, nil, DefaultTau)
	require.NoError(t, err)
	assert.Equal(t, p.Rating, got.Rating)
	assert.InDelta(t, math.Sqrt(50*50+(0.06*scale)*(0.06*scale)), got.RD, 1e-9)
}

// TestSurpriseRaisesVolatility: results far from expectation raise σ,
// results as expected lower it.
func TestSurpriseRaisesVolatility(t *testing.T) {
	p := Player{Rating: 1500, RD: 60, Volatility: 0.06}
	weak := Player{Rating: 1000, RD: 60, Volatility: 0.06}
	var upsets, expected []Result
	for range 10 {
		upsets = append(upsets, Result{Opponent: weak, Score: Loss})
		expected = append(expected, Result{Opponent: weak, Score: Win})
	}
	up, err := Update(p, upsets, DefaultTau)
	require.NoError(t, err)
	calm, err := Update(p, expected, DefaultTau)
	require.NoError(t, err)
	assert.Greater(t, up.Volatility, p.Volatility)
	assert.Less(t, calm.Volatility, p.Volatility)
	assert.Less(t, up.Rating, p.Rating-100)
}

// TestBadInput: nothing that is not a finite rating, a positive RD and
// volatility, a score in 0…1 and a positive τ is accepted, and p comes
// back unchanged.
func TestBadInput(t *testing.T) {
	ok := Player{Rating: 1200, RD: 300, Volatility: 0.06}
	tests := []struct {
		name string
		p    Player
		r    Result
		tau  float64
	}{
		{"NaN rating", Player{Rating: math.NaN(), RD: 300, Volatility: 0.06}, Result{ok, Win}, DefaultTau},
		{"zero RD", Player{Rating: 1200, RD: 0, Volatility: 0.06}, Result{ok, Win}, DefaultTau},
		{"infinite volatility", Player{Rating: 1200, RD: 300, Volatility: math.Inf(1)}, Result{ok, Win}, DefaultTau},
		{"opponent's negative RD", ok, Result{Player{Rating: 1200, RD: -1, Volatility: 0.06}, Win}, DefaultTau},
		{"score above 1", ok, Result{ok, 2}, DefaultTau},
		{"NaN score", ok, Result{ok, math.NaN()}, DefaultTau},
		{"zero tau", ok, Result{ok, Win}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Update(tc.p, []Result{tc.r}, tc.tau)
			require.ErrorIs(t, err, ErrBadInput)
			assert.Equal(t, tc.p.RD, got.RD)
		})
	}
}

// TestExtremes: ratings far apart and tiny or huge RDs still give finite
// ratings and positive, finite RDs and volatilities.
func TestExtremes(t *testing.T) {
	for _, p := range []Player{
		{Rating: 0, RD: 1, Volatility: 0.06},
		{Rating: 5000, RD: 350, Volatility: 0.06},
		{Rating: 1200, RD: 300, Volatility: 1},
		{Rating: 1200, RD: 0.001, Volatility: 1e-6},
	} {
		for _, opp := range []Player{{Rating: -3000, RD: 350, Volatility: 0.06}, {Rating: 9000, RD: 1, Volatility: 0.06}} {
			for _, s := range []float64{Win, Draw, Loss} {
				got, err := Update(p, []Result{{Opponent: opp, Score: s}}, DefaultTau)
				require.NoError(t, err, "%+v vs %+v score %v", p, opp, s)
				assert.False(t, math.IsNaN(got.Rating) || math.IsInf(got.Rating, 0), "rating %v", got.Rating)
				assert.Positive(t, got.RD)
				assert.False(t, math.IsInf(got.RD, 0))
				assert.Positive(t, got.Volatility)
			}
		}
	}
}
