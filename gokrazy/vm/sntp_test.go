package vm

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSNTPServer(t *testing.T) {
	clock := time.Date(2026, 12, 4, 18, 30, 15, 500_000_000, time.UTC)
	s, err := ListenSNTP("127.0.0.1:0", func() time.Time { return clock })
	require.NoError(t, err)
	go s.Serve()
	defer s.Close()

	c, err := net.Dial("udp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	ask := func(req []byte) ([]byte, error) {
		if _, err := c.Write(req); err != nil {
			return nil, err
		}
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		b := make([]byte, 100)
		n, err := c.Read(b)
		return b[:n], err
	}

	// A client request as beevik/ntp (gokrazy's ntp) sends it: version 4,
	// mode 3, its transmit timestamp set.
	req := make([]byte, 48)
	req[0] = 4<<3 | 3
	req[2] = 6
	binary.BigEndian.PutUint64(req[40:], 0x0123456789abcdef)
	r, err := ask(req)
	require.NoError(t, err)
	require.Len(t, r, 48)
	assert.Equal(t, byte(0), r[0]>>6, "no leap second warning (3 would be 'not synchronised')")
	assert.Equal(t, byte(4), r[0]>>3&7, "version copied")
	assert.Equal(t, byte(4), r[0]&7, "server mode")
	assert.Equal(t, byte(1), r[1], "stratum 1")
	assert.Equal(t, byte(6), r[2], "poll copied")
	assert.Equal(t, uint64(0x0123456789abcdef), binary.BigEndian.Uint64(r[24:]), "originate = the client's transmit")
	tx := binary.BigEndian.Uint64(r[40:])
	sec := int64(tx>>32) - ntpEpochOffset
	frac := float64(tx&0xffffffff) / (1 << 32)
	assert.Equal(t, clock.Unix(), sec)
	assert.InDelta(t, 0.5, frac, 1e-6)
	// The server counts an answer once it is sent: the client may read it
	// first (seen once in CI).
	assert.Eventually(t, func() bool { return s.Answers() == 1 }, time.Second, time.Millisecond)

	// What is not a client request gets no answer.
	for _, bad := range [][]byte{
		req[:47],                             // short
		append([]byte{4<<3 | 4}, req[1:]...), // a server's answer
		append([]byte{0<<3 | 3}, req[1:]...), // version 0
		append([]byte{7<<3 | 3}, req[1:]...), // version 7
	} {
		_, err := ask(bad)
		assert.Error(t, err, "no answer to %x", bad[:1])
	}
	assert.Equal(t, 1, s.Answers())

	_, err = ListenSNTP("0.0.0.0:0", time.Now)
	assert.ErrorContains(t, err, "not a loopback address")
}

func TestSNTPRateLimit(t *testing.T) {
	clock := time.Date(2026, 12, 4, 18, 30, 15, 0, time.UTC)
	s, err := ListenSNTP("127.0.0.1:0", func() time.Time { return clock }) // time stands still: one window
	require.NoError(t, err)
	go s.Serve()
	defer s.Close()
	c, err := net.Dial("udp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	req := make([]byte, 48)
	req[0] = 3<<3 | 3
	got := 0
	b := make([]byte, 100)
	for range 2 * sntpRate {
		_, _ = c.Write(req)
		time.Sleep(time.Millisecond) // loopback UDP drops what a full buffer cannot take
	}
	for {
		_ = c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		if _, err := c.Read(b); err != nil {
			break
		}
		got++
	}
	assert.Equal(t, sntpRate, got, "at most sntpRate answers a second")
}
