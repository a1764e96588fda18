package acpcheck

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Level is how strongly the protocol asks for what a check checks, in the
// words of RFC 2119 as the ACP docs use them.
type Level string

// The levels. A failed MUST is a broken agent; a failed SHOULD, one that
// departs from the protocol's advice.
const (
	Must   Level = "MUST"
	Should Level = "SHOULD"
)

// Outcome is what a check found.
type Outcome string

// The outcomes. A check is skipped when it does not apply: the agent does
// not advertise what it checks, the transport cannot carry it, or the
// agent gave it nothing to judge (a turn that ended before it could be
// cancelled, say); the reason says which.
const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	Skip Outcome = "skip"
)

// Source is where a check comes from: a section of the ACP docs (or of
// the specification ACP builds on) and the sentence there that asks for
// what the check checks.
type Source struct {
	// Doc names the document and section, such as
	// "protocol/v1/prompt-turn#cancellation": a path under
	// https://agentclientprotocol.com, "rfds/…" for an RFD, or the name of
	// another specification ("JSON-RPC 2.0 §5").
	Doc string `json:"doc"`
	// Text is the sentence, quoted.
	Text string `json:"text"`
}

// Check describes one check of the suite.
type Check struct {
	// ID names the check, as GROUP.NAME ("cancel.stop-reason"); it is the
	// name of its subtest under [Run].
	ID     string `json:"id"`
	Level  Level  `json:"level"`
	Source Source `json:"source"`
	// Doc says in a sentence what the check does.
	Doc string `json:"doc"`
}

// Result is one check's outcome.
type Result struct {
	Check
	Outcome Outcome `json:"result"`
	// Reason says why the check failed or was skipped, or what it saw
	// when it passed; it may be empty for a pass.
	Reason string `json:"reason,omitempty"`
}

// Report is what a run of the suite found: one Result for each check, in
// the suite's order (that of [Checks]).
type Report struct {
	// Target names the agent checked.
	Target string `json:"target"`
	// Agent is the agent's name and version as its initialize result gave
	// them ("name version"), or empty when it gave none.
	Agent string `json:"agent,omitempty"`
	// Results holds one Result per check run; the caller owns the slice.
	Results []Result `json:"results"`
}

// Failed returns the results that failed at level, or at any level when
// level is empty.
func (r Report) Failed(level Level) []Result {
	var out []Result
	for _, res := range r.Results {
		if res.Outcome == Fail && (level == "" || res.Level == level) {
			out = append(out, res)
		}
	}
	return out
}

// Count returns how many checks had the outcome.
func (r Report) Count(o Outcome) int {
	n := 0
	for _, res := range r.Results {
		if res.Outcome == o {
			n++
		}
	}
	return n
}

// WriteTable writes the report as a table for people: one row per check,
// with its id, level, outcome, reason and doc section, then a line that
// counts the outcomes.
func (r Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ID\tLEVEL\tRESULT\tREASON\tSOURCE\n")
	for _, res := range r.Results {
		reason := strings.Join(strings.Fields(res.Reason), " ")
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", res.ID, res.Level, res.Outcome, reason, res.Source.Doc)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	agent := ""
	if r.Agent != "" {
		agent = " (" + r.Agent + ")"
	}
	_, err := fmt.Fprintf(w, "%s%s: %d passed, %d failed (%d MUST), %d skipped\n",
		r.Target, agent, r.Count(Pass), r.Count(Fail), len(r.Failed(Must)), r.Count(Skip))
	return err
}
