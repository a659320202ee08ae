package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPerftCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"perft", "-mode", "std", "-depth", "6"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 6)
	want := []string{"4", "12", "56", "244", "1396", "8200"}
	for i, l := range lines {
		f := strings.Fields(l)
		require.Len(t, f, 5, l)
		assert.Equal(t, "perft", f[0])
		assert.Equal(t, want[i], f[2], l)
	}

	for _, args := range [][]string{
		{"perft", "-mode", "chess"},
		{"perft", "-depth", "0"},
		{"perft", "-depth", "x"},
	} {
		errb.Reset()
		assert.Equal(t, 2, run(args, strings.NewReader(""), &out, &errb), "%v", args)
		assert.NotEmpty(t, errb.String())
	}
}

func TestLegalCommand(t *testing.T) {
	spec, err := os.ReadFile("../../engines/othello/testdata/spec_requests.jsonl")
	require.NoError(t, err)
	specLines := strings.Split(strings.TrimSpace(string(spec)), "\n")

	// Each request with its own legal_moves emptied: the command must compute them.
	var in bytes.Buffer
	var want [][]int
	for _, l := range specLines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		var legal []int
		for _, v := range m["legal_moves"].([]any) {
			legal = append(legal, int(v.(float64)))
		}
		want = append(want, legal)
		m["legal_moves"] = []int{}
		b, err := json.Marshal(m)
		require.NoError(t, err)
		in.Write(b)
		in.WriteString("\n")
		if len(want) == 2 {
			in.WriteString("not json\n\n{\"board\":[1,2]}\n")
		}
	}
	var out, errb bytes.Buffer
	require.Equal(t, 0, run([]string{"legal"}, &in, &out, &errb), errb.String())
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, got, len(specLines)+2, "one answer per non-blank line")

	j := 0
	for i, line := range got {
		var ans struct {
			Legal []int  `json:"legal_moves"`
			Error string `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &ans), line)
		if i == 2 || i == 3 {
			assert.NotEmpty(t, ans.Error, "line %d: %s", i, line)
			continue
		}
		assert.Empty(t, ans.Error)
		assert.Equal(t, want[j], ans.Legal, "request %d", j)
		j++
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run(nil, strings.NewReader(""), &out, &errb))
	assert.Equal(t, 2, run([]string{"fly"}, strings.NewReader(""), &out, &errb))
}

// usageLines are the lines of the usage text that name a command: "  NAME …".
func usageLines(text string) map[string]bool {
	names := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			names[strings.Fields(l)[0]] = true
		}
	}
	return names
}

func TestUsageListsEveryCommand(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		table []command
	}{
		{nil, commands()},
		{[]string{"train"}, trainCommands()},
	} {
		var out, errb bytes.Buffer
		require.Equal(t, 2, run(tc.args, strings.NewReader(""), &out, &errb))
		assert.Empty(t, out.String())
		listed := usageLines(errb.String())
		seen := map[string]bool{}
		for _, c := range tc.table {
			assert.False(t, seen[c.name], "%q twice in the table", c.name)
			seen[c.name] = true
			assert.NotNil(t, c.run, c.name)
			assert.NotEmpty(t, c.summary, c.name)
			assert.True(t, listed[c.name], "%q missing from the usage:\n%s", c.name, errb.String())
		}
		assert.Len(t, listed, len(tc.table), errb.String())
	}
	var out, errb bytes.Buffer
	require.Equal(t, 2, run(nil, strings.NewReader(""), &out, &errb))
	for _, name := range []string{"perft", "legal", "engine", "nboard", "solve", "bench", "probcut", "train", "moveloss"} {
		assert.True(t, usageLines(errb.String())[name], name)
	}
}

func TestUnknownCommandPrintsTheUsage(t *testing.T) {
	var want bytes.Buffer
	usage(&want, "flipengine", commands())
	for _, args := range [][]string{{"fly"}, {"fly", "-threads", "1"}, {"Engine"}, {"-threads", "1"}} {
		var out, errb bytes.Buffer
		assert.Equal(t, 2, run(args, strings.NewReader(""), &out, &errb), args)
		assert.Empty(t, out.String())
		assert.Equal(t, "flipengine: unknown command \""+args[0]+"\"\n"+want.String(), errb.String())
	}
	for _, arg := range []string{"-h", "-help", "--help", "help"} {
		var out, errb bytes.Buffer
		assert.Equal(t, 2, run([]string{arg}, strings.NewReader(""), &out, &errb), arg)
		assert.Equal(t, want.String(), errb.String(), arg)
	}
	var out, errb bytes.Buffer
	assert.Equal(t, 2, run([]string{"train", "fly"}, strings.NewReader(""), &out, &errb))
	assert.Contains(t, errb.String(), "flipengine train: unknown command \"fly\"\nusage: flipengine train COMMAND")
}
