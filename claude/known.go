package claude

// known returns a static copy of the values that recur on almost every
// line (subtypes, statuses, limit kinds, error kinds, block types), so that
// reporting them does not allocate.
func known(s string) (string, bool) {
	switch s {
	case "init":
		return "init", true
	case "status":
		return "status", true
	case "api_retry":
		return "api_retry", true
	case "permission_denied":
		return "permission_denied", true
	case "compact_boundary":
		return "compact_boundary", true
	case "hook_started":
		return "hook_started", true
	case "hook_response":
		return "hook_response", true
	case "success":
		return "success", true
	case "error_max_turns":
		return "error_max_turns", true
	case "error_during_execution":
		return "error_during_execution", true
	case "error_max_budget_usd":
		return "error_max_budget_usd", true
	case "end_turn":
		return "end_turn", true
	case "tool_use":
		return "tool_use", true
	case "max_tokens":
		return "max_tokens", true
	case "allowed":
		return "allowed", true
	case "allowed_warning":
		return "allowed_warning", true
	case "rejected":
		return "rejected", true
	case "five_hour":
		return "five_hour", true
	case "seven_day":
		return "seven_day", true
	case "seven_day_opus":
		return "seven_day_opus", true
	case "seven_day_sonnet":
		return "seven_day_sonnet", true
	case "overage":
		return "overage", true
	case "rate_limit":
		return "rate_limit", true
	case "overloaded":
		return "overloaded", true
	case "server_error":
		return "server_error", true
	case "rate_limit_error":
		return "rate_limit_error", true
	case "overloaded_error":
		return "overloaded_error", true
	case "api_error":
		return "api_error", true
	case "usage_limit_reached":
		return "usage_limit_reached", true
	case "completed":
		return "completed", true
	case "aborted_streaming":
		return "aborted_streaming", true
	case "aborted_tools":
		return "aborted_tools", true
	case "redacted_thinking":
		return "redacted_thinking", true
	case "server_tool_use":
		return "server_tool_use", true
	case "Bash":
		return "Bash", true
	case "Read":
		return "Read", true
	case "Edit":
		return "Edit", true
	case "Write":
		return "Write", true
	case "Grep":
		return "Grep", true
	case "Glob":
		return "Glob", true
	case "Task":
		return "Task", true
	}
	return "", false
}
