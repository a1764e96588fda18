package cli

import "errors"

// Reasons a run or a turn fails, whatever the CLI: errors.Is matches a
// [*RunError] with the one it holds. The CLI packages name them too
// (codex.ErrAPI is ErrAPI).
var (
	// ErrResumeNotFound: the conversation the run resumed does not exist.
	ErrResumeNotFound = errors.New("resumed conversation not found")
	// ErrMaxTurns: the run reached its maximum number of turns.
	ErrMaxTurns = errors.New("maximum turns reached")
	// ErrAPI: a request to the model's API failed, a usage or rate limit
	// included.
	ErrAPI = errors.New("API error")
	// ErrAuth: the API refused the CLI's credentials, or the CLI has none
	// (an invalid key, a 401, a sign-in that expired or never happened);
	// signing in again is the remedy. It is an ErrAPI too: errors.Is
	// matches a RunError holding it with both.
	ErrAuth error = authError{}
	// ErrNoResult: the process ended without the end of its turn.
	ErrNoResult = errors.New("run ended without a result")
	// ErrFailed: the run failed for another reason, named by the
	// RunError's Message.
	ErrFailed = errors.New("run failed")
)

// authError is ErrAuth, which is also ErrAPI.
type authError struct{}

func (authError) Error() string        { return "credentials refused" }
func (authError) Is(target error) bool { return target == ErrAPI }

// RunError says why a run of a CLI, or a turn of a long-lived CLI process,
// failed. errors.Is matches it with the reason it holds, one of
// [ErrResumeNotFound], [ErrMaxTurns], [ErrAPI] (or [ErrAuth], an ErrAPI),
// [ErrNoResult] and [ErrFailed]; the CLI package that made it documents which it gives and
// what its fields hold.
type RunError struct {
	// Exit is the process's exit status, a value of the CLI package's
	// ExitStatus type; meaningful only when Exited.
	Exit   ExitStatus
	Exited bool
	// Type is the error's type as the CLI names it ("rate_limit_error",
	// "usageLimitExceeded", …); "" when it names none.
	Type string
	// Message is the CLI's own words about the failure; "" when there
	// are none.
	Message string
	// Status is the HTTP status of the request that failed the run, for a
	// run that failed at the API ([ErrAPI]) or ended without a result
	// after an API error ([ErrNoResult]); 0 when none is named.
	Status int
	reason error
	text   string
}

// Reasons are the reasons a run fails in one CLI package's words, which
// begin the text of its RunErrors: {ErrAPI: "codex: API error", …}.
type Reasons map[error]string

// RunError returns a RunError for reason, one of the reasons above, with
// message as its Message; its text begins with reason in r's words, or
// reason's own when r has none.
func (r Reasons) RunError(reason error, message string) *RunError {
	return &RunError{reason: reason, text: r[reason], Message: message}
}

// Error names the reason, the message and the exit status.
func (e *RunError) Error() string {
	s := e.text
	if s == "" && e.reason != nil {
		s = e.reason.Error()
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Exited && e.Exit != nil {
		s += " (" + e.Exit.String() + ")"
	}
	return s
}

// Unwrap returns the reason.
func (e *RunError) Unwrap() error { return e.reason }
