package main

import (
	"io"
	"log/slog"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/config"
	"flipbot.dev/flipbot/engines"
	"flipbot.dev/flipbot/engines/othello"
)

func TestEngineFactoryChoices(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name     string
		cfg      config.Bot
		perLeg   bool           // a warm pool, prewarmed
		spec     bool           // SpecTimed, and the wire request built
		modes    []othello.Mode // nil: all
		practice bool
		engName  string
	}{
		{name: "built-in", cfg: config.Bot{Threads: 1, HashMB: 4}},
		{name: "built-in named", cfg: config.Bot{Threads: 1, HashMB: 4, EngineName: "Mine"}, engName: "Mine"},
		{name: "json line", cfg: config.Bot{Engine: sh + " my_adapter.sh"}, spec: true, modes: othello.AllModes(), engName: "custom (JSON line)"},
		{name: "practice engine", cfg: config.Bot{Engine: sh + " tools/bot_match_example_engine.py"}, spec: true,
			modes: othello.AllModes(), practice: true, engName: "custom (JSON line)"},
		{name: "nboard", cfg: config.Bot{NBoard: sh, EngineName: "NTest"}, perLeg: true, modes: []othello.Mode{othello.Std}, engName: "NTest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, done, err := engineFactory(tt.cfg, log)
			require.NoError(t, err)
			defer func() { require.NoError(t, done()) }()
			require.NotNil(t, f.Provider)
			_, prewarmed := f.Provider.(engines.Prewarmer)
			assert.Equal(t, tt.perLeg, prewarmed)
			assert.Equal(t, tt.spec, f.SpecTimed)
			assert.Equal(t, tt.spec, f.Wire)
			if tt.modes == nil {
				assert.Nil(t, f.Modes)
			} else {
				assert.Equal(t, tt.modes, f.Modes)
			}
			assert.Equal(t, tt.practice, f.Practice)
			if tt.engName != "" {
				assert.Equal(t, tt.engName, f.Name)
			} else {
				assert.NotEmpty(t, f.Name)
			}
		})
	}
	_, _, err = engineFactory(config.Bot{Egaroucid: "/nonexistent/Egaroucid_for_Console.out"}, log)
	assert.Error(t, err, "a missing engine binary fails at startup")
}

func TestDetectCPU(t *testing.T) {
	assert.Regexp(t, `^\S.* \(3 cores\)$`, detectCPU(3))
	assert.NotEmpty(t, osName())
}
