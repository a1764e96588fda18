package claude

import "strings"

// NewText returns the file's whole text after the change: Content, when
// the CLI gave it (Write does), else Original with Hunks applied (Edit,
// MultiEdit). ok is false when neither gives it: no Content and no
// Original, hunks that did not read (nil), or hunks that are not a
// change of Original (a kept or removed line that is not the original's,
// counts that do not add up, hunks out of order).
func (c *FileChange) NewText() (text string, ok bool) {
	switch {
	case c.Content != nil:
		return *c.Content, true
	case c.Original == nil || c.Hunks == nil:
		return "", false
	}
	return applyHunks(*c.Original, c.Hunks)
}

// noNewline starts the marker line that says the line before it has no
// line end.
const noNewline = '\\'

// applyHunks applies the hunks of a unified diff to orig, checking each
// kept and removed line against it.
func applyHunks(orig string, hunks []Hunk) (string, bool) {
	lines := strings.SplitAfter(orig, "\n") // each with its line end
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	out := make([]byte, 0, len(orig))
	pos := 0 // the lines of orig written or removed
	for _, h := range hunks {
		if h.OldLines == 0 && len(lines) > 0 {
			// Where a hunk that keeps no line goes depends on the diff's
			// conventions: only an empty file leaves no doubt.
			return "", false
		}
		start := max(h.OldStart-1, 0)
		if start < pos || start > len(lines) {
			return "", false
		}
		for ; pos < start; pos++ {
			out = append(out, lines[pos]...)
		}
		old, kept := 0, 0 // the hunk's lines of the old text and of the new
		added := false    // the last line written is one the hunk adds
		for _, l := range h.Lines {
			if l == "" {
				return "", false
			}
			switch body := l[1:]; l[0] {
			case ' ', '-':
				if pos >= len(lines) || strings.TrimSuffix(lines[pos], "\n") != body {
					return "", false
				}
				if l[0] == ' ' {
					out = append(out, lines[pos]...)
					kept++
				}
				pos++
				old++
				added = false
			case '+':
				out = append(append(out, body...), '\n')
				kept++
				added = true
			case noNewline:
				if added {
					out = out[:len(out)-1]
					added = false
				}
			default:
				return "", false
			}
		}
		if old != h.OldLines || kept != h.NewLines {
			return "", false
		}
	}
	for ; pos < len(lines); pos++ {
		out = append(out, lines[pos]...)
	}
	return string(out), true
}
