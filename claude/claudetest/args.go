package claudetest

import (
	"strconv"
	"strings"
)

// invocation is what a command line asks of the fake CLI.
type invocation struct {
	print        bool
	verbose      bool
	outputFormat string
	inputFormat  string
	resume       string
	hasResume    bool
	sessionID    string // --session-id
	transcript   string
	prompt       []string
	unknown      []string
	usageErr     string // a malformed command line
}

// valueFlags take a value, as "--name value" or "--name=value". They are
// the real CLI's options this package accepts; only some change what the
// fake does.
var valueFlags = map[string]bool{
	"--output-format":          true,
	"--input-format":           true,
	"--resume":                 true,
	"-r":                       true,
	"--model":                  true,
	"--fallback-model":         true,
	"--permission-mode":        true,
	"--max-turns":              true,
	"--max-budget-usd":         true,
	"--mcp-config":             true,
	"--system-prompt":          true,
	"--append-system-prompt":   true,
	"--allowedTools":           true,
	"--allowed-tools":          true,
	"--disallowedTools":        true,
	"--disallowed-tools":       true,
	"--permission-prompt-tool": true,
	"--session-id":             true,
	"--effort":                 true,
	"--settings":               true,
	"--setting-sources":        true,
	"--add-dir":                true,
	"--agents":                 true,
	"--json-schema":            true,
	"-transcript":              true,
	"--transcript":             true,
}

// boolFlags are the real CLI's switches this package accepts.
var boolFlags = map[string]bool{
	"-p":                             true,
	"--print":                        true,
	"--verbose":                      true,
	"--include-partial-messages":     true,
	"--replay-user-messages":         true,
	"--dangerously-skip-permissions": true,
	"--strict-mcp-config":            true,
	"--continue":                     true,
	"-c":                             true,
	"--fork-session":                 true,
	"--debug":                        true,
	"-d":                             true,
}

// parseArgs reads a command line the way the real CLI's parser does for
// the options above: "--name=value" or "--name value", "--" ending the
// options, anything else that starts with "-" an unknown flag (reported,
// then ignored as a switch), and the rest the prompt.
func parseArgs(args []string) invocation {
	var inv invocation
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			inv.prompt = append(inv.prompt, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			inv.prompt = append(inv.prompt, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case valueFlags[name]:
			if !hasValue {
				if i+1 >= len(args) {
					inv.usageErr = "error: option '" + name + "' argument missing"
					return inv
				}
				i++
				value = args[i]
			}
			inv.set(name, value)
		case boolFlags[name] && !hasValue:
			inv.set(name, "")
		default:
			inv.unknown = append(inv.unknown, name)
		}
	}
	return inv
}

func (inv *invocation) set(name, value string) {
	switch name {
	case "-p", "--print":
		inv.print = true
	case "--verbose":
		inv.verbose = true
	case "--output-format":
		inv.outputFormat = value
	case "--input-format":
		inv.inputFormat = value
	case "--resume", "-r":
		inv.resume, inv.hasResume = value, true
	case "--session-id":
		inv.sessionID = value
	case "-transcript", "--transcript":
		inv.transcript = value
	case "--max-turns":
		if _, err := strconv.Atoi(value); err != nil {
			inv.usageErr = "error: option '--max-turns' expects a number"
		}
	}
}
