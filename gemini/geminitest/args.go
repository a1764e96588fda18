package geminitest

import "strings"

// invocation is what a command line asks of the fake CLI.
type invocation struct {
	outputFormat string
	prompt       string // -p's value
	hasPrompt    bool
	query        []string // positional arguments
	resume       string
	hasResume    bool
	interactive  bool // -i / --prompt-interactive
	skipTrust    bool
	acp          bool // --acp
	transcript   string
	unknown      []string
	usageErr     string // a malformed command line
}

// valueFlags are the real CLI's options that take a value, as "--name
// value" or "--name=value"; only some change what the fake does.
var valueFlags = map[string]bool{
	"-m": true, "--model": true,
	"-p": true, "--prompt": true,
	"-i": true, "--prompt-interactive": true,
	"-o": true, "--output-format": true,
	"-r": true, "--resume": true,
	"--approval-mode":            true,
	"--include-directories":      true,
	"-e":                         true,
	"--extensions":               true,
	"--allowed-mcp-server-names": true,
	"--allowed-tools":            true,
	"--policy":                   true,
	"--delete-session":           true,
	"--sandbox-image":            true,
	"--proxy":                    true,
	"--telemetry-target":         true,
	"--telemetry-otlp-endpoint":  true,
	"--telemetry-outfile":        true,
	"--transcript":               true,
	"-transcript":                true,
}

// boolFlags are the real CLI's switches.
var boolFlags = map[string]bool{
	"-y": true, "--yolo": true,
	"-s": true, "--sandbox": true,
	"-d": true, "--debug": true,
	"--skip-trust":             true,
	"--screen-reader":          true,
	"--checkpointing":          true,
	"--raw-output":             true,
	"--accept-raw-output-risk": true,
	"--telemetry":              true,
	"--telemetry-log-prompts":  true,
	"--show-memory-usage":      true,
	"--all-files":              true,
	"--acp":                    true,
	"--experimental-acp":       true,
	"--list-extensions":        true,
	"--list-sessions":          true,
	"--no-sandbox":             true,
}

// parseArgs reads a command line the way the real CLI's parser does for
// the options above: "--name=value" or "--name value", "--" ending the
// options, anything else starting with "-" an unknown flag (reported, then
// ignored as a switch), and the rest the positional query.
func parseArgs(args []string) invocation {
	var inv invocation
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			inv.query = append(inv.query, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			inv.query = append(inv.query, a)
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case valueFlags[name]:
			if !hasValue {
				if i+1 >= len(args) {
					inv.usageErr = "Not enough arguments following: " + strings.TrimLeft(name, "-")
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
	case "-o", "--output-format":
		inv.outputFormat = value
	case "-p", "--prompt":
		inv.prompt, inv.hasPrompt = value, true
	case "-i", "--prompt-interactive":
		inv.interactive = true
	case "-r", "--resume":
		inv.resume, inv.hasResume = value, true
	case "--skip-trust":
		inv.skipTrust = true
	case "--acp", "--experimental-acp":
		inv.acp = true
	case "-transcript", "--transcript":
		inv.transcript = value
	}
}
