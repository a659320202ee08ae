// Package glicko is the Glicko-2 rating system, as Mark E. Glickman
// describes it in "Example of the Glicko-2 system" (Boston University,
// 2012, revised 2022; http://www.glicko.net/glicko/glicko2.pdf): a rating,
// its rating deviation (RD: how uncertain the rating is) and a volatility
// (how erratic the player's results are), updated from the results of a
// rating period. The arena rates bots with it because FlipSight reports a
// rating and an RD, the pair Glicko-2 keeps.
//
// [Update] is steps 2–8 of the paper for one player and one rating
// period; the new volatility is found with the paper's Illinois algorithm
// (step 5.1–5.5). A period without games only widens the RD
// ([Player.Idle], step 6).
//
// Files: glicko.go (the system), glicko_test.go (the paper's worked
// example and the system's properties).
//
// It imports nothing of the module: it is pure arithmetic on float64s.
package glicko

import (
	"errors"
	"math"
)

// scale converts between the Glicko scale (ratings around 1500) and the
// Glicko-2 scale (step 2 and step 8 of the paper).
const scale = 173.7178

// epsilon is the convergence tolerance of the volatility's iteration (the
// paper's ε).
const epsilon = 0.000001

// maxIterations bounds the Illinois iteration: it converges in a few
// dozen steps for every input the arena makes; the bound keeps a
// pathological input from looping.
const maxIterations = 200

// DefaultTau is the system constant τ, which limits how much the
// volatility may change in one period; the paper suggests 0.3 to 1.2 and
// uses 0.5 in its example.
const DefaultTau = 0.5

// Player is a rating on the Glicko scale: the rating, its deviation (RD)
// and the volatility σ.
type Player struct {
	Rating     float64
	RD         float64
	Volatility float64
}

// Result is one game of a rating period: the opponent's rating before the
// period and the score, 1 a win, 0.5 a draw, 0 a loss.
type Result struct {
	Opponent Player
	Score    float64
}

// Scores of a game.
const (
	Win  = 1.0
	Draw = 0.5
	Loss = 0.0
)

// ErrBadInput is returned by Update for a rating, RD, volatility, τ or
// score that is not finite or out of its range (an RD or volatility not
// above 0, a score outside 0…1).
var ErrBadInput = errors.New("glicko: bad input")

// Idle returns p after a rating period without games: the RD grows by
// the volatility (step 6 alone), the rating stays.
func (p Player) Idle() Player {
	phi := p.RD / scale
	p.RD = math.Sqrt(phi*phi+p.Volatility*p.Volatility) * scale
	return p
}

// g is the paper's g(φ), the weight of an opponent's result by the
// opponent's deviation.
func g(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// expected is the paper's E(μ, μj, φj), the expected score against the
// opponent.
func expected(mu, muJ, phiJ float64) float64 {
	return 1 / (1 + math.Exp(-g(phiJ)*(mu-muJ)))
}

// Update returns p's rating after a rating period with results (every
// opponent's rating as it was before the period), with system constant
// tau. Without results it returns p.Idle().
func Update(p Player, results []Result, tau float64) (Player, error) {
	if err := p.check(); err != nil {
		return p, err
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return p, ErrBadInput
	}
	for _, r := range results {
		if err := r.Opponent.check(); err != nil {
			return p, err
		}
		if !(r.Score >= 0 && r.Score <= 1) {
			return p, ErrBadInput
		}
	}
	if len(results) == 0 {
		return p.Idle(), nil
	}
	// Step 2: to the Glicko-2 scale.
	mu := (p.Rating - 1500) / scale
	phi := p.RD / scale
	sigma := p.Volatility

	// Steps 3 and 4: the estimated variance v of the rating from the
	// results alone, and the estimated improvement Δ.
	var invV, sum float64
	for _, r := range results {
		muJ := (r.Opponent.Rating - 1500) / scale
		phiJ := r.Opponent.RD / scale
		gj := g(phiJ)
		e := expected(mu, muJ, phiJ)
		invV += gj * gj * e * (1 - e)
		sum += gj * (r.Score - e)
	}
	v := 1 / invV
	delta := v * sum

	// Step 5: the new volatility.
	sigma = volatility(delta, phi, v, sigma, tau)

	// Steps 6 and 7: the new deviation and rating.
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	phiNew := 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	muNew := mu + phiNew*phiNew*sum

	// Step 8: back to the Glicko scale.
	out := Player{Rating: scale*muNew + 1500, RD: scale * phiNew, Volatility: sigma}
	if err := out.check(); err != nil {
		return p, err // cannot happen for checked inputs; never hand on a NaN
	}
	return out, nil
}

// volatility is step 5: the new σ, the root of f found by the Illinois
// algorithm (a regula falsi that halves the stale end's value).
func volatility(delta, phi, v, sigma, tau float64) float64 {
	a := math.Log(sigma * sigma)
	d2, p2 := delta*delta, phi*phi
	f := func(x float64) float64 {
		ex := math.Exp(x)
		return ex*(d2-p2-v-ex)/(2*(p2+v+ex)*(p2+v+ex)) - (x-a)/(tau*tau)
	}
	// 5.2: the initial bracket [A, B].
	A := a
	var B float64
	if d2 > p2+v {
		B = math.Log(d2 - p2 - v)
	} else {
		k := 1.0
		for f(a-k*tau) < 0 && k < maxIterations {
			k++
		}
		B = a - k*tau
	}
	// 5.3–5.4: narrow it.
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon && i < maxIterations; i++ {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	// 5.5
	return math.Exp(A / 2)
}

// check reports whether p is a rating the system can work with.
func (p Player) check() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if !finite(p.Rating) || !finite(p.RD) || !finite(p.Volatility) || p.RD <= 0 || p.Volatility <= 0 {
		return ErrBadInput
	}
	return nil
}
