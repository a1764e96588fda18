package acpcheck_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
)

// An agent's own test runs the suite with Run: one subtest per check,
// TestConformance/cancel.stop-reason and so on, failed with the sentence
// the agent breaks.
func ExampleRun() {
	testConformance := func(t *testing.T) {
		acpcheck.Run(t, acpcheckos.Command("my-agent", "--flag"), nil)
	}
	_ = testConformance // func TestConformance(t *testing.T) in a _test.go file
}

// Verify returns the report for a program to read. The agent here is the
// reference agent of this package's tests, run in-process over pipes with
// acpcheck.Stdio; a real one is acpcheckos.Command("my-agent").
func ExampleVerify() {
	dir, err := os.MkdirTemp("", "acpcheck-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	report, err := acpcheck.Verify(context.Background(), newRefAgent("none").target(), &acpcheck.Options{Cwd: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("MUST failures: %d\n", len(report.Failed(acpcheck.Must)))
	for _, r := range report.Results[:3] {
		fmt.Println(r.ID, r.Level, r.Outcome)
	}
	// Output:
	// MUST failures: 0
	// framing.ids MUST pass
	// initialize.before MUST pass
	// errors.method-not-found MUST pass
}

// A remote agent is checked at its URL, over one transport; the remote
// checks probe both. acpcheckos.URL does the same with a real client.
func ExampleRemote() {
	target := acpcheck.Remote("http://127.0.0.1:8080/acp", acpcheck.RemoteOptions{
		Transport:  acpcheck.StreamableHTTP,
		HTTPClient: http.DefaultClient,
		Header:     http.Header{"Authorization": {"Bearer " + os.Getenv("AGENT_TOKEN")}},
		Clock:      acpcheckos.Clock{},
	})
	report, err := acpcheck.Verify(context.Background(), target, &acpcheck.Options{Cwd: "/tmp/scratch"})
	if err != nil {
		fmt.Println(err)
		return
	}
	report.WriteTable(os.Stdout)
}
