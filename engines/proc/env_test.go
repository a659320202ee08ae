package proc

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/config"
)

func TestTokenVarIsConfigs(t *testing.T) {
	assert.Equal(t, config.TokenEnv, tokenVar)
	assert.Equal(t, config.EngineEnvEnv, ExtraEnvVar)
}

func TestEngineEnv(t *testing.T) {
	got := EngineEnv([]string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "PYTHONPATH=/x", "OMP_NUM_THREADS=2",
		"FS_BOT_TOKEN=fsbm_SECRET", "AWS_SECRET_ACCESS_KEY=k", "GITHUB_TOKEN=t", "PYTHON_KEYRING_PASSWORD=p",
		"SSH_AUTH_SOCK=/tmp/agent", "RANDOM_VAR=1", "=broken", "noequals",
	})
	assert.Equal(t, []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "PYTHONPATH=/x", "OMP_NUM_THREADS=2"}, got)

	got = EngineEnv([]string{"PATH=/bin", ExtraEnvVar + "=CUDA_VISIBLE_DEVICES, FS_BOT_TOKEN", "CUDA_VISIBLE_DEVICES=0", "FS_BOT_TOKEN=fsbm_SECRET"})
	assert.Equal(t, []string{"PATH=/bin", "CUDA_VISIBLE_DEVICES=0"}, got, "listed variables pass, the token never")
}

// The process itself: with the token and a cloud key in our environment,
// the engine sees neither (it used to inherit our whole environment).
func TestEngineProcessDoesNotInheritSecrets(t *testing.T) {
	envPath, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	t.Setenv("FS_BOT_TOKEN", "fsbm_THESECRETTOKEN")
	t.Setenv("MY_CLOUD_API_KEY", "cloudsecret")
	t.Setenv("UNRELATED_SETTING", "x")
	t.Setenv("LANG", "C.UTF-8")
	p, err := Start(Config{Path: envPath, Name: "env"})
	require.NoError(t, err)
	defer p.Kill()
	var lines []string
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case l, ok := <-p.Lines():
			if !ok {
				done = true
				break
			}
			lines = append(lines, l)
		case <-timeout:
			t.Fatal("env did not end")
		}
	}
	all := strings.Join(lines, "\n")
	assert.NotContains(t, all, "THESECRETTOKEN")
	assert.NotContains(t, all, "FS_BOT_TOKEN")
	assert.NotContains(t, all, "cloudsecret")
	assert.NotContains(t, all, "UNRELATED_SETTING")
	assert.Contains(t, all, "LANG=C.UTF-8")
	assert.Contains(t, all, "PATH=")
}

// TestEnvNote: what an engine that failed at once is told about the
// variables the filter dropped: the engine's own by name (a word of its
// file names, or a runtime's), the others counted, no value, nothing that
// looks secret.
func TestEnvNote(t *testing.T) {
	parent := []string{
		"PATH=/bin", "HOME=/home/u", "EDAX_HOME=/opt/edax", "JAVA_HOME=/usr/lib/jvm", "CUDA_VISIBLE_DEVICES=0",
		"DISPLAY=:0", "EDITOR=vi", "EDAX_TOKEN=t", "FS_BOT_TOKEN=fsbm_SECRET", "AWS_SECRET_ACCESS_KEY=k",
		ExtraEnvVar + "=", "=C:=C:\\", "MYBOT_MODEL=/models/x", "PWD=/home/u",
	}
	child := EngineEnv(parent)
	tests := []struct {
		name    string
		command []string
		want    string
	}{
		{"edax", []string{"/opt/edax/bin/lEdax-x64-modern", "-q"},
			"the engine environment filter dropped CUDA_VISIBLE_DEVICES, EDAX_HOME and 5 other variables; FLIPBOT_ENGINE_ENV=CUDA_VISIBLE_DEVICES,EDAX_HOME passes them"},
		{"a script", []string{"python3", "engines/mybot.py"},
			"the engine environment filter dropped CUDA_VISIBLE_DEVICES, MYBOT_MODEL and 5 other variables; FLIPBOT_ENGINE_ENV=CUDA_VISIBLE_DEVICES,MYBOT_MODEL passes them"},
		{"java", []string{"/usr/bin/java", "-jar", "engine.jar"}, "dropped CUDA_VISIBLE_DEVICES, JAVA_HOME and 5 other variables"},
		{"windows path", []string{`C:\engines\Edax.exe`}, "EDAX_HOME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := envNote(parent, child, tt.command)
			assert.Contains(t, got, tt.want)
			for _, never := range []string{"TOKEN", "SECRET", "/opt/edax", "=C:", "fsbm", "/models"} {
				assert.NotContains(t, got, never)
			}
		})
	}
	assert.Equal(t, "the engine environment filter passed it none of 2 other variables of ours; FLIPBOT_ENGINE_ENV=NAME,… passes those it needs",
		envNote([]string{"PATH=/bin", "DISPLAY=:0", "EDITOR=vi", "GITHUB_TOKEN=x"}, []string{"PATH=/bin"}, []string{"engine"}))
	assert.Empty(t, envNote([]string{"PATH=/bin", "GITHUB_TOKEN=x"}, []string{"PATH=/bin"}, []string{"engine"}), "nothing but secrets dropped")
	assert.Empty(t, envNote(parent, parent, []string{"edax"}), "nothing dropped: the owner passed everything")

	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf("EDAX_X%02d=1", i))
	}
	got := envNote(many, nil, []string{"edax"})
	assert.Contains(t, got, "EDAX_X07 and 4 other variables", "at most 8 named")
	assert.NotContains(t, got, "EDAX_X08")
}
