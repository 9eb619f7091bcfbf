package rt

import "golang.org/x/sys/unix"

func syscallCloseOnExec(fd int) { unix.CloseOnExec(fd) }
