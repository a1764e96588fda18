package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"strconv"
	"strings"

	"github.com/acpkit/acpkit/acp"
)

// This file holds what the CLIs' replays of a stored conversation share
// (see [Replayer]): the Host they show it through, and the prompts
// turned back into the content blocks the editor sent.

// replayHost is the Host of a Replay. It takes notices whatever the
// client declared, and shows a client without notices the errors among
// them as agent text, the CLI's words exactly as stored: live, the
// prompt's error showed them.
type replayHost struct {
	*host
	notices bool
}

func (h *replayHost) Notify(updates ...acp.Update) {
	out := updates[:0:0]
	for _, u := range updates {
		n, ok := u.(acp.Notice)
		switch {
		case !ok || h.notices:
		case n.Severity == acp.NoticeError:
			u = acp.AgentMessageChunk{Content: acp.TextContent{Text: n.Title}}
		default:
			continue // live, a client without notices saw nothing
		}
		out = append(out, u)
	}
	h.host.Notify(out...)
}

// readable yields the entries a CLI package's reader reads from the
// stored file at path, logging and skipping the lines it cannot read (its
// line error, LE), and stopping at an error of the file itself, which it
// leaves in *err.
func readable[E any, LE error](entries iter.Seq2[E, error], log *slog.Logger, path string, err *error) iter.Seq[E] {
	return func(yield func(E) bool) {
		for e, lineErr := range entries {
			var le LE
			switch {
			case errors.As(lineErr, &le):
				log.Warn("a stored line skipped", "file", path, "error", lineErr)
			case lineErr != nil:
				*err = lineErr
				return
			case !yield(e):
				return
			}
		}
	}
}

// The bridge writes a prompt's resources into the CLI's text, which is
// what the CLI stores: a link as a Markdown link, an embedded text
// resource in a context tag. A replay reads them back.

// linkText is a resource link as the CLI's text.
func linkText(name, uri string) string { return fmt.Sprintf("[@%s](%s)", name, uri) }

// contextText is an embedded text resource as the CLI's text.
func contextText(uri, text string) string {
	return fmt.Sprintf("<context ref=%q>\n%s\n</context>", uri, text)
}

// textBlock returns the content block that a text block of a stored
// prompt was, as a list of one: a resource the bridge wrote as text, or
// the text itself.
func textBlock(text string) []acp.ContentBlock {
	if b, n := resourceBlock(text); b != nil && n == len(text) {
		return []acp.ContentBlock{b}
	}
	return []acp.ContentBlock{acp.TextContent{Text: text}}
}

// promptBlocks splits the text of a stored prompt that the bridge wrote
// as one text ([promptText]: the blocks joined with blank lines) back
// into its blocks. A resource starts the text or follows a blank line,
// and ends the text or a blank line follows it.
func promptBlocks(text string) []acp.ContentBlock {
	var out []acp.ContentBlock
	start := 0 // of the text block under way
	for i := 0; ; {
		if b, n := resourceBlock(text[i:]); b != nil && (i+n == len(text) || strings.HasPrefix(text[i+n:], "\n\n")) {
			if i > start {
				out = append(out, acp.TextContent{Text: text[start : i-2]})
			}
			out = append(out, b)
			if i+n == len(text) {
				return out
			}
			i += n + 2
			start = i
			continue
		}
		j := strings.Index(text[i:], "\n\n")
		if j < 0 {
			return append(out, acp.TextContent{Text: text[start:]})
		}
		i += j + 2
	}
}

// resourceBlock reads a resource the bridge wrote as text at the start of
// s, and returns it and its length; nil when s does not start with one.
func resourceBlock(s string) (acp.ContentBlock, int) {
	if rest, ok := strings.CutPrefix(s, "[@"); ok {
		name, rest, ok := strings.Cut(rest, "](")
		uri, _, ok2 := strings.Cut(rest, ")")
		if !ok || !ok2 || uri == "" || strings.ContainsAny(name, "\n") || strings.ContainsAny(uri, " \n") {
			return nil, 0
		}
		return acp.ResourceLink{Name: name, URI: uri}, len(linkText(name, uri))
	}
	rest, ok := strings.CutPrefix(s, "<context ref=")
	if !ok {
		return nil, 0
	}
	quoted, err := strconv.QuotedPrefix(rest)
	uri, _ := strconv.Unquote(quoted)
	if err != nil || strconv.Quote(uri) != quoted || !strings.HasPrefix(rest[len(quoted):], ">\n") {
		return nil, 0 // not as contextText writes it
	}
	body := rest[len(quoted)+2:]
	// The text ends at the first closing tag that ends the block.
	for off := 0; ; {
		i := strings.Index(body[off:], "\n</context>")
		if i < 0 {
			return nil, 0
		}
		end := off + i
		after := body[end+len("\n</context>"):]
		if after == "" || strings.HasPrefix(after, "\n\n") {
			text := body[:end]
			return acp.EmbeddedResource{Resource: acp.ResourceContents{URI: uri, Text: &text}}, len(contextText(uri, text))
		}
		off = end + 1
	}
}

// imageBlock is an image of a stored prompt as a content block: its data,
// or a link to it when the CLI kept its address only.
func imageBlock(mediaType, data, url string) acp.ContentBlock {
	if data == "" && url != "" {
		return acp.ResourceLink{Name: "image", URI: url, MimeType: mediaType}
	}
	return acp.ImageContent{Data: data, MimeType: mediaType}
}

// storedBlock is the shape of a block of a stored prompt, the same in
// every CLI package (claude.PromptBlock, codex.PromptBlock, …).
type storedBlock = struct {
	Type      string
	Text      string          `json:",omitempty"`
	MediaType string          `json:",omitempty"`
	Data      string          `json:",omitempty"`
	URL       string          `json:",omitempty"`
	Raw       json.RawMessage `json:",omitempty"`
}

// storedPrompt is a stored prompt as the content blocks the editor sent:
// its text read back by blocks (the CLI's text blocks are the editor's
// text and resources), and its images. A block of another kind, which
// the bridge does not send, is left out.
func storedPrompt[B ~storedBlock](p []B, blocks func(string) []acp.ContentBlock) []acp.ContentBlock {
	var out []acp.ContentBlock
	for _, b := range p {
		switch b := storedBlock(b); b.Type {
		case "text":
			out = append(out, blocks(b.Text)...)
		case "image":
			out = append(out, imageBlock(b.MediaType, b.Data, b.URL))
		}
	}
	return out
}

// userChunks returns the updates that show the editor's prompt again.
func userChunks(blocks []acp.ContentBlock) []acp.Update {
	out := make([]acp.Update, 0, len(blocks))
	for _, b := range blocks {
		out = append(out, acp.UserMessageChunk{Content: b})
	}
	return out
}
