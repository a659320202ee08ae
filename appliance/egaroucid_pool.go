package appliance

import (
	"log/slog"

	"flipbot.dev/flipbot/appliance/settings"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/egaroucid"
	"flipbot.dev/flipbot/engines/sizing"
)

// newEgaroucidPool sizes Egaroucid for the device (engines/sizing): as
// many processes, in pairs, as fit the memory bound for the matches the
// settings allow at once, each leg half the cores (at most the settings'
// threads) and the largest table that keeps them all inside the bound.
// fallback plays std when no pair is free or the build is refused.
// When not even one pair fits (a 512 MiB Zero 2 W) it logs why and
// returns nil: std is played by the built-in engine and the device keeps
// working.
func newEgaroucidPool(path string, s settings.Settings, m sizing.Machine, fallback engines.Provider, log *slog.Logger) *egaroucid.Pool {
	want := 2 * max(1, s.MaxMatches)
	slots, p := sizing.Pairs(m, want, sizing.Egaroucid)
	if s.Threads > 0 {
		p.Threads = min(p.Threads, s.Threads)
	}
	args := []any{"processes", slots, "matches_with_egaroucid", slots / 2, "max_matches", s.MaxMatches,
		"rss_mib_estimate", p.RSS >> 20, "share_mib", p.Share >> 20, "limit_mib", egaroucid.OverShareLimit(p.Share) >> 20,
		"memory_mib", m.Memory >> 20, "hash_level", p.Table, "threads", p.Threads}
	if slots == 0 {
		log.Warn("Egaroucid does not fit this device's memory even for one match; std is played by the built-in engine", args...)
		return nil
	}
	if slots < want {
		log.Info("Egaroucid sized to the device for fewer std matches than may run at once; "+
			"a std match beyond them plays both legs with the built-in engine", args...)
	} else {
		log.Info("Egaroucid sized to the device", args...)
	}
	return egaroucid.NewPool(slots, func() (egaroucid.Instance, error) {
		return egaroucid.New(egaroucid.Options{Path: path, Threads: p.Threads, Hash: p.Table,
			MemoryShare: p.Share, RefuseOverShare: true, Logger: log,
			StderrLevel: slog.LevelDebug}) // its time limit, at every move
	}, fallback, log)
}
