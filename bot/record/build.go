package record

import (
	"errors"
	"fmt"
	"time"

	"flipbot.dev/flipbot/engines/othello"
	"flipbot.dev/flipbot/flipsight"
)

// Search is what the bot knows of one of its own moves.
type Search struct {
	// Source is "engine", "forced" or "fallback".
	Source string
	Depth  int
	Exact  bool
	// Score is the engine's evaluation for the mover, valid when HasScore.
	Score    float64
	HasScore bool
}

// LegInput is what FromLeg needs: a match object (its state gives the mode,
// the opening, the clock and the result) and the latest view of one leg.
type LegInput struct {
	// Source is SourceFlipSight or SourceArena.
	Source string
	Match  flipsight.Match
	// Leg is the leg's index and View its latest state (with its history).
	Leg  int
	View flipsight.Leg
	// Names and IDs are the players by participant (0 bot_a, 1 bot_b).
	Names [2]string
	IDs   [2]int64
	// Me is the bot's participant (0 or 1), or -1 when neither side is
	// the bot.
	Me int
	// Searches are the bot's own moves by their index in View.History.
	Searches map[int]Search
	// StartBoard, when set, is the leg's board seen before any move (with
	// StartTurn and StartPlaced): the start when the match object has no
	// opening (human matches start from the rules' initial position).
	StartBoard  []int
	StartTurn   int
	StartPlaced flipsight.Placed
	// MatchResult is the match from the bot's side, when known.
	MatchResult string
	// Ended is used when the leg has no finished_ms.
	Ended time.Time
}

// FromLeg builds the record of a finished leg. It replays the history from
// the start to check it and to fill in the clocks; it fails when the leg
// is still active or the moves do not follow the rules.
func FromLeg(in LegInput) (Game, error) {
	st := in.Match.State
	if st == nil {
		return Game{}, errors.New("record: match without state")
	}
	v := in.View
	if v.Status == flipsight.LegActive || v.Status == "" {
		return Game{}, fmt.Errorf("record: match %d leg %d is not over (%q)", in.Match.ID, in.Leg, v.Status)
	}
	modeName := st.GameMode
	if modeName == "" {
		modeName = in.Match.GameMode
	}
	mode, err := othello.ParseMode(modeName)
	if err != nil {
		return Game{}, fmt.Errorf("record: match %d: %w", in.Match.ID, err)
	}
	size := mode.Size()
	limit := int64(st.TimeLimitSec) * 1000
	if limit <= 0 {
		limit = int64(in.Match.TimeLimitSec) * 1000
	}
	g := Game{
		Schema: Schema, Source: in.Source, MatchID: in.Match.ID, Leg: in.Leg,
		Human: in.Match.IsHuman(), Ranked: in.Match.Ranked,
		Mode: mode.String(), BoardSize: size, Blocked: mode.BlockedSquares(),
		ClockMS:     limit,
		LegStatus:   v.Status,
		MatchResult: in.MatchResult,
	}
	if g.Blocked == nil {
		g.Blocked = []int{}
	}
	if st.RoundNo != nil {
		g.Round = *st.RoundNo
	}
	if st.FinishReason != nil {
		g.Reason = *st.FinishReason
	}
	black := v.BlackParticipant
	if black != 0 && black != 1 {
		return Game{}, fmt.Errorf("record: match %d leg %d: black_participant %d", in.Match.ID, in.Leg, black)
	}
	g.Black = Player{Name: in.Names[black], ID: in.IDs[black], Me: in.Me == black}
	g.White = Player{Name: in.Names[1-black], ID: in.IDs[1-black], Me: in.Me == 1-black}
	switch in.Me {
	case black:
		g.MyColor = 1
	case 1 - black:
		g.MyColor = 2
	}

	start, opening, err := startOf(in, mode)
	if err != nil {
		return Game{}, fmt.Errorf("record: match %d leg %d: %w", in.Match.ID, in.Leg, err)
	}
	g.Start = Start{Board: start.Board(), Turn: int(start.Turn),
		Placed: [2]int{start.Placed.Black, start.Placed.White}, Opening: opening}

	startMS := st.StartedMS
	if startMS == 0 && len(v.History) > 0 {
		startMS = v.History[0].AtMS
	}
	g.Started = time.UnixMilli(startMS).UTC()
	clocks := [2]int64{limit, limit}
	pos := start
	prev := startMS
	for i, h := range v.History {
		mv := h.Move.Square
		if h.Move.IsText() {
			if mv, err = othello.ParseMove(h.Move.Text, size); err != nil {
				return Game{}, fmt.Errorf("record: match %d leg %d move %d: %w", in.Match.ID, in.Leg, i+1, err)
			}
		}
		if h.Color != int(pos.Turn) && pos.MustPass() {
			// A pass the server made without a history entry (human
			// games): write it, so that the record replays.
			g.Moves = append(g.Moves, Move{Color: int(pos.Turn), Move: othello.Pass, Square: "pass",
				ClockMS: clocks[pos.Turn-1]})
			pos, _ = pos.Play(othello.Pass)
		}
		if h.Color != int(pos.Turn) {
			return Game{}, fmt.Errorf("record: match %d leg %d move %d: %s to move, not colour %d", in.Match.ID, in.Leg, i+1, pos.Turn, h.Color)
		}
		next, err := pos.Play(mv)
		if err != nil {
			return Game{}, fmt.Errorf("record: match %d leg %d move %d: %w", in.Match.ID, in.Leg, i+1, err)
		}
		m := Move{Color: h.Color, Move: mv, Square: squareName(mv, size)}
		if h.AtMS > 0 && prev > 0 && h.AtMS >= prev {
			m.TimeMS = h.AtMS - prev
		}
		if h.AtMS > 0 {
			prev = h.AtMS
		}
		clocks[h.Color-1] = max(0, clocks[h.Color-1]-m.TimeMS)
		m.ClockMS = clocks[h.Color-1]
		if s, ok := in.Searches[i]; ok {
			m.Source, m.Depth, m.Exact = s.Source, s.Depth, s.Exact
			if s.HasScore {
				score := s.Score
				m.Score = &score
			}
		}
		g.Moves = append(g.Moves, m)
		pos = next
	}
	if len(v.Discs) == 2 {
		g.Discs = [2]int{v.Discs[0], v.Discs[1]}
	} else {
		b, w := pos.Count()
		g.Discs = [2]int{b, w}
	}
	g.ResultDiscs = g.Discs
	if len(v.ResultDiscs) == 2 {
		g.ResultDiscs = [2]int{v.ResultDiscs[0], v.ResultDiscs[1]}
	}
	if len(v.ClocksMS) == 2 {
		g.FinalClocksMS = [2]int64{max(0, int64(v.ClocksMS[0])), max(0, int64(v.ClocksMS[1]))}
	} else {
		g.FinalClocksMS = clocks
	}
	g.Winner = LegWinner(g.Mode, g.ResultDiscs)
	g.Result = LegResult(g.Winner, g.MyColor)
	g.Ended = in.Ended.UTC()
	if v.FinishedMS != nil && *v.FinishedMS > 0 {
		g.Ended = time.UnixMilli(*v.FinishedMS).UTC()
	} else if prev > 0 && g.Ended.IsZero() {
		g.Ended = time.UnixMilli(prev).UTC()
	}
	g.ID = MakeID(g.MatchID, g.Leg, g.Ended)
	return g, nil
}

// startOf finds the leg's start: the opening replayed from the rules'
// initial position, else the board seen before any move, else (human
// games, whose history holds every move) the initial position.
func startOf(in LegInput, mode othello.Mode) (othello.Position, []int, error) {
	st := in.Match.State
	if !in.Match.IsHuman() && (len(st.OpeningHistory) > 0 || len(st.OpeningMoves) > 0) {
		pos := othello.New(mode)
		var opening []int
		moves := st.OpeningMoves
		if len(st.OpeningHistory) > 0 {
			moves = moves[:0:0]
			for _, h := range st.OpeningHistory {
				moves = append(moves, h.Move)
			}
		}
		for i, m := range moves {
			sq := m.Square
			if m.IsText() {
				var err error
				if sq, err = othello.ParseMove(m.Text, mode.Size()); err != nil {
					return pos, nil, fmt.Errorf("opening move %d: %w", i+1, err)
				}
			}
			if sq != othello.Pass && pos.MustPass() {
				pos, _ = pos.Play(othello.Pass)
			}
			next, err := pos.Play(sq)
			if err != nil {
				return pos, nil, fmt.Errorf("opening move %d: %w", i+1, err)
			}
			pos = next
			if sq != othello.Pass {
				opening = append(opening, sq)
			}
		}
		return pos, opening, nil
	}
	if in.StartBoard != nil {
		pos, err := othello.FromBoard(mode, in.StartBoard, othello.Color(in.StartTurn),
			othello.Placed(in.StartPlaced), mode.BlockedSquares())
		if err != nil {
			return pos, nil, fmt.Errorf("start board: %w", err)
		}
		return pos, nil, nil
	}
	if in.Match.IsHuman() {
		return othello.New(mode), nil, nil
	}
	return othello.Position{}, nil, errors.New("no opening and no start board: the start is unknown")
}

func squareName(mv, size int) string {
	if mv == othello.Pass {
		return "pass"
	}
	return othello.SquareName(mv, size)
}
