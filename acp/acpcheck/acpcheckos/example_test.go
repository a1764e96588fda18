package acpcheckos_test

import (
	"context"
	"fmt"
	"os"

	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
)

// An agent that is no agent at all (true exits at once) fails the
// suite's MUST checks, each saying what it waited for.
func ExampleCommand() {
	dir, err := os.MkdirTemp("", "acpcheckos-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	report, err := acpcheck.Verify(context.Background(), acpcheckos.Command("true"), &acpcheck.Options{Cwd: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("target:", report.Target)
	fmt.Println("MUST failed:", len(report.Failed(acpcheck.Must)) > 0)
	// Output:
	// target: true
	// MUST failed: true
}
