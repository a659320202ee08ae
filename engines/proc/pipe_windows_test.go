package proc

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/windows"
)

// TestPipesAreOurUsersOnly: the pipes to an engine have a protected DACL
// with one entry, which allows our own user (the SID of our process's
// token) and nobody else. Before, they had the default security
// descriptor: Everyone may read a named pipe.
func TestPipesAreOurUsersOnly(t *testing.T) {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	require.NoError(t, err)
	for _, out := range []bool{false, true} {
		ours, theirs, err := newPipe(out)
		require.NoError(t, err)
		sd, err := windows.GetSecurityInfo(windows.Handle(ours.Fd()), windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
		require.NoError(t, err, "read the pipe's security")
		t.Logf("out=%v: %s", out, sd.String())
		control, _, err := sd.Control()
		require.NoError(t, err)
		assert.NotZero(t, control&windows.SE_DACL_PROTECTED, "the DACL inherits nothing")
		dacl, _, err := sd.DACL()
		require.NoError(t, err)
		require.NotNil(t, dacl, "a DACL (none would allow everyone)")
		require.Equal(t, uint16(1), dacl.AceCount, "one entry")
		var ace *windows.ACCESS_ALLOWED_ACE
		require.NoError(t, windows.GetAce(dacl, 0, &ace))
		assert.Equal(t, uint8(windows.ACCESS_ALLOWED_ACE_TYPE), ace.Header.AceType)
		sid := (*windows.SID)(unsafe.Pointer(&ace.SidStart))
		assert.True(t, sid.Equals(user.User.Sid), "the entry is our user's, not %s", sid)
		ours.Close()
		theirs.Close()
	}
}
