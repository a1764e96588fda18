package main

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"
)

// openStdin returns standard input as a file whose Close interrupts a Read
// in progress, so that when a signal ends the connection, the Conn's
// reading goroutine returns at once instead of waiting for the client's
// next line. Closing os.Stdin does not do that: it is in blocking mode, and
// nothing interrupts a blocking read(2).
//
// In non-blocking mode, stdin joins the runtime's poller, like the pipes
// os.Pipe makes, when it is a pipe, a socket or a terminal. Other files (a
// regular file, /dev/null) cannot be polled; reading them never blocks for
// long, so they are put back in blocking mode and read as usual.
func openStdin() io.ReadCloser {
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	f := os.NewFile(0, "/dev/stdin")
	if f.SetReadDeadline(time.Time{}) != nil { // only polled files have deadlines
		syscall.SetNonblock(0, false)
	}
	return &stdinFile{File: f}
}

// stdinFile is stdin in non-blocking mode.
type stdinFile struct {
	*os.File
	once sync.Once
}

// Close puts stdin back in blocking mode, then closes it. The mode belongs
// to the open file, not to this process: a shell sharing the terminal would
// otherwise find its reads failing with EAGAIN.
func (f *stdinFile) Close() error {
	f.once.Do(func() { syscall.SetNonblock(0, false) })
	return f.File.Close()
}
