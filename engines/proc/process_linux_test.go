package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// running reports whether pid is a live, non-zombie process.
func running(pid int) bool {
	s, err := readStat(pid)
	return err == nil && s.state != 'Z'
}

// exists reports whether pid is in /proc at all (a zombie too).
func exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// fakeOS are the Linux behaviours of the fake engine.
func fakeOS(args []string) int {
	switch args[0] {
	case "escape": // leave processes outside the group, write "label pid" lines to args[1], then echo
		exe, _ := os.Executable()
		var lines []string
		spawn := func(label string, attr *syscall.SysProcAttr) bool {
			c := exec.Command(exe, "ignorequit")
			c.SysProcAttr = attr
			if err := c.Start(); err != nil {
				return false
			}
			lines = append(lines, fmt.Sprintf("%s %d", label, c.Process.Pid))
			return true
		}
		// setsid sleep 300 &
		if !spawn("setsid", &syscall.SysProcAttr{Setsid: true}) {
			return 4
		}
		// A new session with a child of its own.
		c := exec.Command(exe, "parent")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := c.StdoutPipe()
		if err != nil || c.Start() != nil {
			return 4
		}
		child, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			return 4
		}
		lines = append(lines, fmt.Sprintf("setsid-parent %d", c.Process.Pid), "setsid-child "+strings.TrimSpace(child))
		// A new group in our session (job control, setpgid).
		if !spawn("setpgid", &syscall.SysProcAttr{Setpgid: true}) {
			return 4
		}
		// ( setsid sleep 300 & ): the parent exits at once.
		d := exec.Command(exe, "detach")
		pid, err := d.Output()
		if err != nil {
			return 5
		}
		lines = append(lines, "double-fork "+strings.TrimSpace(string(pid)))
		if err := os.WriteFile(args[1], []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			return 6
		}
		return fake([]string{"echo"})
	case "parent": // start a child, print its pid, stay
		exe, _ := os.Executable()
		c := exec.Command(exe, "ignorequit")
		if err := c.Start(); err != nil {
			return 4
		}
		fmt.Println(c.Process.Pid)
		time.Sleep(time.Hour)
	case "detach": // start a setsid child, print its pid and exit
		exe, _ := os.Executable()
		c := exec.Command(exe, "ignorequit")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			return 4
		}
		fmt.Println(c.Process.Pid)
		return 0
	}
	return 2
}
