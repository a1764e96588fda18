package codextest

import "strings"

// invocation is what a command line asks of the fake CLI.
type invocation struct {
	json       bool
	resume     bool   // the resume subcommand
	last       bool   // resume --last
	sessionID  string // resume's SESSION_ID
	transcript string
	prompt     string
	hasPrompt  bool
	usageErr   string // why the command line is refused, as clap says it
}

// valueFlags are the real CLI's options that take a value, as "--name
// value", "--name=value", or for a short name "-n value", "-n=value" and
// "-nvalue". Only some change what the fake does.
var valueFlags = map[string]bool{
	"--model": true, "-m": true,
	"--sandbox": true, "-s": true,
	"--profile": true, "-p": true,
	"--cd": true, "-C": true,
	"--add-dir":             true,
	"--config":              true,
	"-c":                    true,
	"--image":               true,
	"-i":                    true,
	"--output-last-message": true,
	"-o":                    true,
	"--output-schema":       true,
	"--color":               true,
	"--local-provider":      true,
	"--enable":              true,
	"--disable":             true,
	"-transcript":           true,
	"--transcript":          true,
}

// boolFlags are the real CLI's switches.
var boolFlags = map[string]bool{
	"--json":                true,
	"--experimental-json":   true,
	"--skip-git-repo-check": true,
	"--ephemeral":           true,
	"--ignore-user-config":  true,
	"--ignore-rules":        true,
	"--full-auto":           true,
	"--dangerously-bypass-approvals-and-sandbox": true,
	"--yolo": true,
	"--oss":  true,
	"--last": true,
	"--all":  true,
}

// sandboxes are the values --sandbox accepts.
var sandboxes = map[string]bool{"read-only": true, "workspace-write": true, "danger-full-access": true}

// parseArgs reads a command line the way the real CLI's parser (clap)
// does for `codex exec`: the "exec" subcommand (or its alias "e"), options
// anywhere, the "resume" subcommand with its session id, "--" ending the
// options, and one prompt. It refuses what clap refuses: an unknown flag, a
// missing or invalid value, a second prompt.
func parseArgs(args []string) invocation {
	var inv invocation
	if len(args) == 0 || args[0] != "exec" && args[0] != "e" {
		inv.usageErr = "fakecodex: only `codex exec` is supported"
		return inv
	}
	var positional []string
	options := true
	for i := 1; i < len(args); i++ {
		a := args[i]
		if !options || a == "-" || len(a) < 2 || a[0] != '-' {
			if options && !inv.resume && len(positional) == 0 && a == "resume" {
				inv.resume = true
				continue
			}
			positional = append(positional, a)
			continue
		}
		if a == "--" {
			options = false
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		if !valueFlags[name] && !boolFlags[name] && !strings.HasPrefix(a, "--") && len(a) > 2 {
			name, value, hasValue = a[:2], a[2:], true // -mVALUE
		}
		switch {
		case valueFlags[name]:
			if !hasValue {
				if i+1 >= len(args) {
					inv.usageErr = "error: a value is required for '" + name + "' but none was supplied"
					return inv
				}
				i++
				value = args[i]
			}
			if !inv.set(name, value) {
				return inv
			}
		case boolFlags[name] && !hasValue:
			inv.set(name, "")
		default:
			inv.usageErr = "error: unexpected argument '" + a + "' found"
			return inv
		}
	}
	if inv.resume && !inv.last && len(positional) > 0 {
		inv.sessionID, positional = positional[0], positional[1:]
	}
	switch len(positional) {
	case 0:
	case 1:
		inv.prompt, inv.hasPrompt = positional[0], positional[0] != "-"
	default:
		inv.usageErr = "error: unexpected argument '" + positional[1] + "' found"
	}
	if inv.resume && !inv.last && inv.sessionID == "" && inv.usageErr == "" {
		inv.usageErr = "error: resume needs a SESSION_ID or --last"
	}
	return inv
}

// set records an option; it returns false, with usageErr set, for a value
// the real CLI refuses.
func (inv *invocation) set(name, value string) bool {
	switch name {
	case "--json", "--experimental-json":
		inv.json = true
	case "--last":
		inv.last = true
	case "-transcript", "--transcript":
		inv.transcript = value
	case "--sandbox", "-s":
		if !sandboxes[value] {
			inv.usageErr = "error: invalid value '" + value + "' for '--sandbox <SANDBOX_MODE>'"
			return false
		}
	}
	return true
}
