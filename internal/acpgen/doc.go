package main

import (
	"regexp"
	"strings"
	"unicode"
)

// comment returns text, Markdown from the schema or the generator's own
// prose, as a Go doc comment indented by indent: paragraphs wrapped at
// about 76 columns, lists as Go doc lists, and Markdown links as Go doc
// links with their targets listed at the end.
func comment(text, indent string) string {
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	var links []string // "[text]: url" definitions, in order
	seen := map[string]string{}
	text = mdLink.ReplaceAllStringFunc(text, func(s string) string {
		m := mdLink.FindStringSubmatch(s)
		label, url := m[1], m[2]
		if prev, ok := seen[label]; ok && prev != url {
			return label + " (" + url + ")" // a label given two targets
		}
		if _, ok := seen[label]; !ok {
			seen[label] = url
			links = append(links, "["+label+"]: "+url)
		}
		return "[" + label + "]"
	})
	text = strings.NewReplacer(`\[`, "[", `\]`, "]").Replace(text)
	var b strings.Builder
	for i, para := range paragraphs(text) {
		if !para.list {
			// A paragraph without a final stop would read as a heading.
			last := &para.lines[len(para.lines)-1]
			if !strings.ContainsAny((*last)[len(*last)-1:], ".!?:;)`") {
				*last += "."
			}
		}
		if i > 0 {
			b.WriteString(indent + "//\n")
		}
		b.WriteString(para.format(indent))
	}
	if len(links) > 0 {
		b.WriteString(indent + "//\n")
		for _, l := range links {
			b.WriteString(indent + "// " + l + "\n")
		}
	}
	return b.String()
}

var mdLink = regexp.MustCompile(`\[([^\]\[]+)\]\(([^)\s]+)\)`)

// para is a paragraph, or a list whose items are its lines.
type para struct {
	lines []string
	list  bool
}

// paragraphs splits text at blank lines, and lists out of the paragraphs
// that hold them.
func paragraphs(text string) []para {
	var out []para
	var cur *para
	flush := func() {
		if cur != nil && len(cur.lines) > 0 {
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			flush()
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			if cur == nil || !cur.list {
				flush()
				cur = &para{list: true}
			}
			cur.lines = append(cur.lines, strings.TrimSpace(t[2:]))
		case cur != nil && cur.list && line != t:
			// An indented line continues the list item before it.
			cur.lines[len(cur.lines)-1] += " " + t
		default:
			if cur != nil && cur.list {
				flush()
			}
			if cur == nil {
				cur = &para{}
			}
			cur.lines = append(cur.lines, t)
		}
	}
	flush()
	return out
}

func (p para) format(indent string) string {
	var b strings.Builder
	if p.list {
		for _, item := range p.lines {
			for i, l := range wrap(item, 72-len(indent)) {
				if i == 0 {
					b.WriteString(indent + "//   - " + l + "\n")
				} else {
					b.WriteString(indent + "//     " + l + "\n")
				}
			}
		}
		return b.String()
	}
	for _, l := range wrap(strings.Join(p.lines, " "), 76-len(indent)) {
		b.WriteString(indent + "// " + l + "\n")
	}
	return b.String()
}

// wrap breaks s into lines of at most width columns, at spaces.
func wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			out = append(out, line)
			line = w
		default:
			line += " " + w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// firstSentence splits a description into its first sentence, without
// its period, and the rest.
func firstSentence(desc string) (first, rest string) {
	para, after, _ := strings.Cut(desc, "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	if i := strings.Index(para, ". "); i >= 0 {
		first, rest = para[:i], strings.TrimSpace(para[i+2:])
	} else {
		first = para
	}
	first = strings.TrimSuffix(first, ".")
	if after != "" {
		if rest != "" {
			rest += "\n\n"
		}
		rest += after
	}
	return first, rest
}

// lead turns a description's first sentence into a Go doc comment's:
// one that starts with name. "Capabilities supported by the agent"
// becomes "AgentCapabilities are the capabilities supported by the
// agent", "Represents a tool call" "ToolCall represents a tool call".
func lead(name, sentence string) string {
	word, _, _ := strings.Cut(sentence, " ")
	verb := "is"
	if strings.HasSuffix(name, "s") && !strings.HasSuffix(name, "ss") && !strings.HasSuffix(name, "us") {
		verb = "are"
	}
	switch {
	case word == "A" || word == "An" || word == "The":
		return name + " " + verb + " " + lowerFirst(sentence)
	case strings.HasSuffix(word, "s") && isVerb(word):
		return name + " " + lowerFirst(sentence)
	case isAcronym(word):
		return name + " " + verb + " the " + sentence
	}
	return name + " " + verb + " the " + lowerFirst(sentence)
}

// isVerb reports whether a description's first word is a verb in the
// third person, as in "Represents a tool call".
func isVerb(w string) bool {
	switch w {
	case "Represents", "Describes", "Contains", "Allows", "Identifies", "Holds", "Defines":
		return true
	}
	return false
}

// isAcronym reports whether w is written in capitals, as "MCP", "ACP",
// "JSON-RPC", "HTTP", and keeps them.
func isAcronym(w string) bool {
	upper := 0
	for _, r := range w {
		if unicode.IsUpper(r) {
			upper++
		}
	}
	return upper >= 2
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
