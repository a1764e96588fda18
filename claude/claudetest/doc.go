// Package claudetest helps test programs that drive the Claude Code CLI
// without running the real CLI or spending API credit.
package claudetest
