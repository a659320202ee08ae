package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionCommand(t *testing.T) {
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"version"}, strings.NewReader(""), &out, &errb))
	assert.Regexp(t, `^flipengine \S+.* \(go\S+ \w+/\w+\)\n$`, out.String())
	assert.Empty(t, errb.String())
}
