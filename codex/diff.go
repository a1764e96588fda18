package codex

import (
	"strconv"
	"strings"
)

// parseHunks reads a unified diff's hunks, in order; nil when it has none
// or a hunk does not read (a header that is not "@@ -a[,b] +c[,d] @@", a
// line of no kind, counts that are not the hunk's lines). File headers
// before the first hunk ("--- a", "+++ b", "diff --git …") are skipped.
func parseHunks(diff string) []Hunk {
	var out []Hunk
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	var h *Hunk
	old, kept := 0, 0 // the current hunk's lines of each side
	done := func() bool { return h == nil || old == h.OldLines && kept == h.NewLines }
	for _, l := range lines {
		if strings.HasPrefix(l, "@@ ") {
			if !done() {
				return nil
			}
			k, ok := hunkHeader(l)
			if !ok {
				return nil
			}
			out = append(out, k)
			h, old, kept = &out[len(out)-1], 0, 0
			continue
		}
		if h == nil {
			continue // a file header
		}
		switch {
		case l == "":
			return nil
		case l[0] == ' ':
			old, kept = old+1, kept+1
		case l[0] == '-':
			old++
		case l[0] == '+':
			kept++
		case l[0] != '\\':
			return nil
		}
		h.Lines = append(h.Lines, l)
	}
	if !done() {
		return nil
	}
	return out
}

// hunkHeader reads "@@ -a[,b] +c[,d] @@[ section]"; a missing count is 1.
func hunkHeader(l string) (Hunk, bool) {
	rest, ok := strings.CutPrefix(l, "@@ -")
	ranges, _, ok2 := strings.Cut(rest, " @@")
	oldRange, newRange, ok3 := strings.Cut(ranges, " +")
	if !ok || !ok2 || !ok3 {
		return Hunk{}, false
	}
	h := Hunk{Lines: []string{}}
	var ok4, ok5 bool
	h.OldStart, h.OldLines, ok4 = hunkRange(oldRange)
	h.NewStart, h.NewLines, ok5 = hunkRange(newRange)
	return h, ok4 && ok5
}

// hunkRange reads "start[,count]".
func hunkRange(s string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 || a[0] == '+' || a[0] == '-' {
		return 0, 0, false
	}
	if !hasCount {
		return start, 1, true
	}
	count, err = strconv.Atoi(b)
	if err != nil || count < 0 || b[0] == '+' || b[0] == '-' {
		return 0, 0, false
	}
	return start, count, true
}
