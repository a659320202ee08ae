package proc

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"flipbot.dev/flipbot/config"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTokenVarIsConfigs(t *testing.T) {
	assert.Equal(t, config.TokenEnv, tokenVar)
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
