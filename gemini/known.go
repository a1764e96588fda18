package gemini

// known returns a static copy of the values that recur on many lines
// (roles, statuses, severities, model aliases, built-in tool names), so
// that reporting them does not allocate.
func known(s string) (string, bool) {
	switch s {
	case "auto":
		return "auto", true
	case "success":
		return "success", true
	case "error":
		return "error", true
	case "warning":
		return "warning", true
	case "unknown":
		return "unknown", true
	case "":
		return "", true
	}
	if t, ok := toolKinds[s]; ok {
		return t.name, true
	}
	return "", false
}
