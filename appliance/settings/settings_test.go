package settings

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultSettingsValid(t *testing.T) {
	require.NoError(t, Default().Validate(false))
}

func TestSettingsValidate(t *testing.T) {
	tests := []struct {
		name      string
		change    func(*Settings)
		egaroucid bool
		wantErr   string
	}{
		{"max matches 0", func(s *Settings) { s.MaxMatches = 0 }, false, "max matches"},
		{"max matches above limit", func(s *Settings) { s.MaxMatches = MaxMatchesLimit + 1 }, false, "max matches"},
		{"threads 0", func(s *Settings) { s.Threads = 0 }, false, "threads"},
		{"hash too big", func(s *Settings) { s.HashMB = MaxHashMB + 1 }, false, "hash"},
		{"Egaroucid for anti", func(s *Settings) { s.Engines["anti"] = EngineEgaroucid }, true, "std only"},
		{"Egaroucid not installed", func(s *Settings) { s.Engines["std"] = EngineEgaroucid }, false, "not installed"},
		{"Egaroucid for std where installed", func(s *Settings) { s.Engines["std"] = EngineEgaroucid }, true, ""},
		{"unknown mode", func(s *Settings) { s.Engines["chess"] = EngineBuiltin }, false, "unknown game mode"},
		{"unknown engine", func(s *Settings) { s.Engines["std"] = "edax" }, false, "unknown engine"},
		{"all modes off", func(s *Settings) {
			for m := range s.Engines {
				s.Engines[m] = EngineOff
			}
		}, false, "at least one"},
		{"bad pin", func(s *Settings) { s.LEDs.Online = "pin 17" }, false, "GPIO17"},
		{"pin beyond header", func(s *Settings) { s.LEDs.Online = "GPIO40" }, false, "GPIO0..GPIO27"},
		{"shared pin", func(s *Settings) { s.LEDs.Game = s.LEDs.Online }, false, "share"},
		{"LED not fitted", func(s *Settings) { s.LEDs.Error = "none" }, false, ""},
		{"unknown display", func(s *Settings) { s.Display = "crt" }, false, "display"},
		{"an OLED", func(s *Settings) { s.Display = "sh1106" }, false, ""},
		{"bad I2C bus", func(s *Settings) { s.I2CBus = "x" }, false, "I2C"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Default()
			tc.change(&s)
			err := s.Validate(tc.egaroucid)
			if tc.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.wantErr)
		})
	}
}

func TestSettingsStore(t *testing.T) {
	st := NewFile(t.TempDir())
	s, err := st.Load()
	require.NoError(t, err)
	assert.Equal(t, Default(), s, "no file: defaults")

	s.MaxMatches, s.HashMB, s.Display = 3, 128, "lcd2004"
	require.NoError(t, st.Save(s))
	got, err := st.Load()
	require.NoError(t, err)
	assert.Equal(t, s, got)
	fi, err := os.Stat(filepath.Join(st.Dir, FileName))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	require.NoError(t, os.WriteFile(filepath.Join(st.Dir, FileName), []byte("{not json"), 0o600))
	got, err = st.Load()
	require.Error(t, err)
	assert.Equal(t, Default(), got, "damaged file: defaults, device keeps running")
}

func TestParseSettingsPartial(t *testing.T) {
	s, err := Parse([]byte(`{"threads": 2}`))
	require.NoError(t, err)
	assert.Equal(t, 2, s.Threads)
	assert.Equal(t, Default().MaxMatches, s.MaxMatches)
	assert.Equal(t, EngineBuiltin, s.Engines["octagon"])
}

func TestSettingsFromForm(t *testing.T) {
	f := url.Values{
		"max_matches": {"4"}, "threads": {"2"}, "hash_mb": {"256"},
		"engine_std": {"egaroucid"}, "engine_reversi": {"off"},
		"led_online": {"gpio5"}, "led_game": {"none"}, "led_error": {""},
		"display": {"ssd1306"}, "i2c_bus": {"1"},
	}
	s, err := FromForm(Default(), f)
	require.NoError(t, err)
	require.NoError(t, s.Validate(true))
	assert.Equal(t, 4, s.MaxMatches)
	assert.Equal(t, EngineEgaroucid, s.Engines["std"])
	assert.Equal(t, EngineOff, s.Engines["reversi"])
	assert.Equal(t, EngineBuiltin, s.Engines["anti"])
	assert.Equal(t, LEDPins{Online: "GPIO5", Game: "none", Error: ""}, s.LEDs)

	f.Set("threads", "many")
	_, err = FromForm(Default(), f)
	require.ErrorContains(t, err, "threads")
}

func FuzzParseSettings(f *testing.F) {
	b, _ := json.Marshal(Default())
	f.Add(b)
	f.Add([]byte(`{"engines":null,"leds":{"online":"GPIO99"}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			return
		}
		_ = s.Validate(true) // must not panic, whatever the content
		if s.Engines == nil {
			t.Fatal("engines map is nil after a successful parse")
		}
	})
}

func FuzzSettingsFromForm(f *testing.F) {
	f.Add("max_matches=2&threads=1&hash_mb=64&engine_std=builtin&display=auto")
	f.Add("max_matches=-1&threads=%00&led_online=none")
	f.Fuzz(func(t *testing.T, q string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		s, err := FromForm(Default(), v)
		if err != nil {
			return
		}
		_ = s.Validate(false)
	})
}

// Two names of one GPIO line are one pin: duplicates are found after
// normalising ("" is the role's default pin, GPIO05 is GPIO5).
func TestLEDPinDuplicatesAfterNormalising(t *testing.T) {
	for _, tc := range []struct {
		name string
		leds LEDPins
		dup  bool
	}{
		{"leading zero", LEDPins{Online: "GPIO05", Game: "GPIO5", Error: "GPIO22"}, true},
		{"empty is the default", LEDPins{Online: "", Game: "GPIO17", Error: "GPIO22"}, true},
		{"empty error is GPIO22", LEDPins{Online: "GPIO22", Game: "GPIO27", Error: ""}, true},
		{"lower case", LEDPins{Online: "gpio6", Game: "GPIO6", Error: "none"}, true},
		{"distinct", LEDPins{Online: "GPIO05", Game: "GPIO6", Error: ""}, false},
		{"none twice", LEDPins{Online: "none", Game: "NONE", Error: ""}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Default()
			s.LEDs = tc.leds
			err := s.Validate(false)
			if tc.dup {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "share")
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestNormalizePin(t *testing.T) {
	for in, want := range map[string]string{"": "GPIO17", "GPIO05": "GPIO5", " gpio5 ": "GPIO5", "None": "none", "GPIO17": "GPIO17", "PIN7": "PIN7"} {
		assert.Equal(t, want, normalizePin(in, "GPIO17"), in)
	}
}
