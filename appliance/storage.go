package appliance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/appliance/store"
)

// checkStorage reports whether dir (the token and settings directory, under
// perm) can be written: perm must exist, dir is created 0700 when missing,
// and a probe file is written and removed. The problem text is for people:
// it names the cause (no /perm, read-only /perm) and what to do.
func checkStorage(perm, dir string, fsys store.FS) state.Storage {
	st := state.Storage{Path: perm}
	if fi, err := os.Stat(perm); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			st.Problem = fmt.Sprintf("%s is missing: the token cannot be kept", perm)
		} else {
			st.Problem = fmt.Sprintf("%s cannot be read: %v", perm, err)
		}
		return st
	}
	st.FreeBytes = freeBytes(perm)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		st.Problem = storageProblem(perm, err)
		return st
	}
	probe := dir + string(os.PathSeparator) + ".probe"
	if err := fsys.WriteFile(probe, []byte("ok\n"), 0o600); err != nil {
		st.Problem = storageProblem(perm, err)
		return st
	}
	os.Remove(probe)
	st.OK = true
	return st
}

func storageProblem(perm string, err error) string {
	if store.IsReadOnly(err) {
		return fmt.Sprintf("%s is read-only: its file system was never created (run the mkfs.ext4 step that gok overwrite prints); the token cannot be kept", perm)
	}
	return fmt.Sprintf("%s cannot be written: %v", perm, err)
}
