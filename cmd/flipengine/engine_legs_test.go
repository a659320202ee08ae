package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestLegsSeen(t *testing.T) {
	l := newLegsSeen()
	t0 := time.Unix(1000, 0)
	assert.Equal(t, 1, l.see(7, 0, t0), "one leg so far")
	assert.Equal(t, 2, l.see(7, 1, t0.Add(time.Second)), "both legs of the pair share the process")
	assert.Equal(t, 2, l.see(7, 0, t0.Add(2*time.Second)))
	assert.Equal(t, 1, l.see(-3, 0, t0.Add(3*time.Second)), "another match counts its own legs")
	assert.Equal(t, 1, l.see(7, 0, t0.Add(2*time.Second+legWindow+time.Second)), "leg 1 ended: alone again")
	assert.Len(t, l.at, 1, "old entries are forgotten")
}
