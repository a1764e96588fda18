package codex

// known returns a static copy of the values that recur on many lines
// (statuses, change kinds, action types, item ids of short runs), so that
// reporting them does not allocate.
func known(s string) (string, bool) {
	switch s {
	case "in_progress":
		return "in_progress", true
	case "completed":
		return "completed", true
	case "failed":
		return "failed", true
	case "declined":
		return "declined", true
	case "add":
		return "add", true
	case "delete":
		return "delete", true
	case "update":
		return "update", true
	case "search":
		return "search", true
	case "open_page":
		return "open_page", true
	case "find_in_page":
		return "find_in_page", true
	case "other":
		return "other", true
	case "item_0":
		return "item_0", true
	case "item_1":
		return "item_1", true
	case "item_2":
		return "item_2", true
	case "item_3":
		return "item_3", true
	}
	return "", false
}
