package bridge

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/timeparse"
)

// This file holds what the CLIs run once per turn (Codex, Gemini CLI)
// share: the prompt goes to the process's standard input as text, and
// the turn ends when the process exits.

// oneShot is the part of a per-turn CLI's Conversation that is the same
// for every such CLI. The CLI's own part sets stdin in its CommandLine.
type oneShot struct {
	text   string // the turn's prompt
	stdin  []byte // what the next process reads
	inTurn bool
}

func (o *oneShot) Prompt(prompt []acp.ContentBlock) error {
	text, err := promptText(prompt)
	if err != nil {
		return err
	}
	o.text, o.inTurn = text, true
	return nil
}

// Start writes the prompt; the CLI reads its whole input before it
// starts.
func (o *oneShot) Start(stdin io.WriteCloser) {
	stdin.Write(o.stdin)
	stdin.Close()
	o.stdin = nil
}

// Interrupt reports that the CLI can only be signalled.
func (*oneShot) Interrupt() bool { return false }

// Answer has nothing to answer: these CLIs ask no questions.
func (*oneShot) Answer(Host, Question, acp.PermissionOutcome, error) {}

// SetMode and SetModel leave the change to the next turn's process.
func (*oneShot) SetMode(string) func(context.Context) error  { return nil }
func (*oneShot) SetModel(string) func(context.Context) error { return nil }

// promptText joins a prompt into the text of a CLI that takes text only:
// text as it is, resources as their contents in a context tag, links as
// Markdown links.
func promptText(prompt []acp.ContentBlock) (string, error) {
	var b strings.Builder
	for _, c := range prompt {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch c := c.(type) {
		case acp.TextContent:
			b.WriteString(c.Text)
		case acp.ResourceLink:
			b.WriteString(linkText(c.Name, c.URI))
		case acp.EmbeddedResource:
			if c.Resource.Text == nil {
				return "", acp.Errorf(acp.CodeInvalidParams, "binary resource %s is not supported", c.Resource.URI)
			}
			b.WriteString(contextText(c.Resource.URI, *c.Resource.Text))
		default:
			return "", acp.Errorf(acp.CodeInvalidParams, "prompt content of type %T is not supported", c)
		}
	}
	if b.Len() == 0 {
		return "", acp.Errorf(acp.CodeInvalidParams, "the prompt is empty")
	}
	return b.String(), nil
}

// exitCode is the exit code a Process's Wait error carries: 0 for nil,
// -1 when it names none (a signal).
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var coded interface{ ExitCode() int }
	if errors.As(err, &coded) {
		return coded.ExitCode()
	}
	return -1
}

// resumeNotFound is the error of a resume the CLI does not know.
func resumeNotFound(cli, id string) error {
	return acp.Errorf(acp.CodeResourceNotFound, "%s has no conversation %s to resume", cli, id).
		WithData(ErrorData{Kind: KindResumeNotFound, SessionID: id})
}

// notices reports that the client takes notices.
type notices bool

// add appends a notice with msg as its title, for a client that takes
// notices; others get nothing, since the CLI's words come back in the
// prompt's error when they matter.
func (n notices) add(dst []acp.Update, sev acp.NoticeSeverity, msg string) []acp.Update {
	if !n || msg == "" {
		return dst
	}
	return append(dst, acp.Notice{Severity: sev, Title: msg})
}

// runOutcome maps how a per-turn CLI's run ended onto the prompt's
// response, through the sentinel errors of the CLI's package.
type runOutcome struct {
	cli                                     string // the CLI's name, for messages
	resumeNotFound, noResult, api, maxTurns error  // maxTurns is nil for a CLI without a turn limit
	noResetTime                             error
	// parseReset is the CLI package's ParseResetTime.
	parseReset func(text string, now time.Time, zones timeparse.ZoneResolver) (int64, error)
}

// of returns the stop reason of a run whose Turn.Err is err, or the
// error to answer the prompt with. msg is the CLI's own words about the
// failure ("" for none) and status the HTTP status of the request that
// failed it (0 for none), as the package's RunError gives them; now, in
// the CLI's zone, and zones read a reset time out of the CLI's words.
func (o runOutcome) of(err error, msg string, status int, resumeID string, now time.Time, zones timeparse.ZoneResolver) (acp.StopReason, error) {
	switch {
	case err == nil:
		return acp.StopReasonEndTurn, nil
	case o.maxTurns != nil && errors.Is(err, o.maxTurns):
		return acp.StopReasonMaxTurnRequests, nil
	case errors.Is(err, o.resumeNotFound):
		return "", resumeNotFound(o.cli, resumeID)
	case errors.Is(err, o.noResult):
		return "", acp.Errorf(acp.CodeInternalError, "%s exited without finishing the turn: %v", o.cli, err).WithData(ErrorData{Kind: KindCrash})
	}
	if msg == "" {
		msg = err.Error()
	}
	data := ErrorData{Kind: KindCLIError}
	if status != 0 || errors.Is(err, o.api) {
		data.Kind, data.APIErrorStatus = KindAPIError, status
	}
	switch ms, perr := o.parseReset(msg, now, zones); {
	case perr == nil:
		data.Kind, data.ResetsAtMs = KindRateLimit, ms
	case errors.Is(perr, o.noResetTime):
		data.Kind = KindRateLimit
	}
	return "", acp.Errorf(acp.CodeInternalError, "%s", msg).WithData(data)
}
