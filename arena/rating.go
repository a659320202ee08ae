package arena

import (
	"errors"
	"fmt"

	"flipbot.dev/flipbot/arena/glicko"
	"flipbot.dev/flipbot/flipsight"
)

// A new bot's rating, as FlipSight shows it (the spec's agent_poll
// example: rating 1200, rd 300, provisional until 50 rated games), and
// the Glicko-2 settings the arena rates with: σ 0.06 and τ 0.5, the values
// of Glickman's example.
const (
	InitialRating     = 1200
	InitialRD         = 300
	InitialVolatility = 0.06
	RatingTau         = glicko.DefaultTau
	// OfficialAfter is the number of rated matches after which a rating
	// is official (the spec's official_progress.required).
	OfficialAfter = 50
)

// botRating is a bot's rating record. Guarded by Server.mu.
type botRating struct {
	glicko.Player
	high                float64
	wins, losses, draws int
	streak, bestStreak  int // streak: +n wins in a row, −n losses in a row
}

func newBotRating() botRating {
	return botRating{
		Player: glicko.Player{Rating: InitialRating, RD: InitialRD, Volatility: InitialVolatility},
		high:   InitialRating,
	}
}

// games returns the rated matches the bot has finished.
func (r *botRating) games() int { return r.wins + r.losses + r.draws }

// wire returns r as agent_poll's bot.rating.
func (r *botRating) wire() *flipsight.Rating {
	out := &flipsight.Rating{
		Rating: r.Rating, RD: r.RD, HighRating: r.high,
		Wins: r.wins, Losses: r.losses, Draws: r.draws,
		Streak: r.streak, BestStreak: r.bestStreak,
		Official:         r.games() >= OfficialAfter,
		OfficialProgress: &flipsight.OfficialProgress{Kind: "provisional", Current: min(r.games(), OfficialAfter), Required: OfficialAfter},
	}
	if !out.Official {
		out.Color = "pz-rating-unofficial"
	}
	return out
}

// record adds one rated result (glicko.Win, Draw or Loss) and the rating
// after it.
func (r *botRating) record(score float64, after glicko.Player) {
	r.Player = after
	r.high = max(r.high, after.Rating)
	switch score {
	case glicko.Win:
		r.wins++
		r.streak = max(r.streak, 0) + 1
	case glicko.Loss:
		r.losses++
		r.streak = min(r.streak, 0) - 1
	default:
		r.draws++
		r.streak = 0
	}
	r.bestStreak = max(r.bestStreak, r.streak)
}

// rate applies a finished match to both bots' ratings, as FlipSight
// rates bot-vs-bot matches: the match (both legs, won on the sum of
// discs) is one game of its own rating period for each bot, scored 1, ½
// or 0 by state.winner, each bot rated against the other's rating from
// before the match. Only ranked, finished bot-vs-bot matches count:
// aborted ones, human matches and practice matches do not (spec, 対戦ルール,
// 自動ボット対戦). It records the ratings before and after on the match
// (rating_before, rating_after, rating_applied).
func (s *Server) rate(m *match) {
	if m.human || !m.ranked || m.status != flipsight.MatchFinished || m.ratingApplied {
		return
	}
	a, b := s.botByID(m.botA), s.botByID(m.botB)
	if a == nil || b == nil || a == b {
		return
	}
	scoreA := glicko.Draw
	if m.winner != nil {
		scoreA = [2]float64{glicko.Win, glicko.Loss}[*m.winner]
	}
	before := [2]glicko.Player{a.rating.Player, b.rating.Player}
	afterA, errA := glicko.Update(before[0], []glicko.Result{{Opponent: before[1], Score: scoreA}}, RatingTau)
	afterB, errB := glicko.Update(before[1], []glicko.Result{{Opponent: before[0], Score: 1 - scoreA}}, RatingTau)
	if errA != nil || errB != nil {
		// Cannot happen: the arena makes every rating it rates with.
		s.log.Error("rating not applied", "match", m.id, "err", errors.Join(errA, errB))
		return
	}
	a.rating.record(scoreA, afterA)
	b.rating.record(1-scoreA, afterB)
	m.ratingApplied = true
	m.ratingBefore = [2]float64{before[0].Rating, before[1].Rating}
	m.ratingAfter = [2]float64{afterA.Rating, afterB.Rating}
	s.log.Info("ratings", "match", m.id,
		"a", a.name, "a_rating", fmt.Sprintf("%.0f→%.0f ±%.0f", before[0].Rating, afterA.Rating, afterA.RD),
		"b", b.name, "b_rating", fmt.Sprintf("%.0f→%.0f ±%.0f", before[1].Rating, afterB.Rating, afterB.RD))
}
