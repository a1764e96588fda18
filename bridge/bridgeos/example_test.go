//go:build unix

package bridgeos_test

import (
	"fmt"
	"io"

	"github.com/acpkit/acpkit/bridge/bridgeos"
)

// A Starter runs the CLI as a process of its own; the Agent reads its
// output to the end, then waits for it.
func ExampleStarter() {
	start, err := bridgeos.Starter("echo", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := start("/", []string{"hello"})
	if err != nil {
		fmt.Println(err)
		return
	}
	go io.Copy(io.Discard, p.Stderr())
	out, _ := io.ReadAll(p.Stdout())
	fmt.Printf("%s%v\n", out, p.Wait())
	// Output:
	// hello
	// <nil>
}
