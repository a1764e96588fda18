package claude

import (
	"io"
	"regexp"
	"strings"

	"github.com/acpkit/acpkit/internal/storefile"
)

// InfoLimit is the most bytes [ReadInfo] reads at each end of a file.
const InfoLimit = 1 << 20

// Info is what a list of sessions shows of one stored session.
type Info struct {
	// SessionID is the session id the file's entries name; "" when none
	// of the lines read names one. A file's name holds the id too (see
	// [ParseSessionFile]).
	SessionID string
	// CWD is the directory the session ran in, from the first entry that
	// names one; "" when none of the lines read does.
	CWD string
	// Title is the session's title: the CLI's own, from the last
	// custom-title entry (a /rename), else the last ai-title, else the
	// last summary; else the text of the person's first prompt (see
	// [ReadInfo]); "" when there is none of these. It is on one line, cut
	// to 200 characters.
	Title string
	// Named reports that Title is the session's own title, one of the
	// CLI's title entries, rather than its first prompt.
	Named bool
	// Updated is the time of the last entry that has one, in Unix epoch
	// milliseconds; 0 when none of the lines read has one.
	Updated int64
}

// ReadInfo reads what a list of sessions shows of the session file r,
// size bytes long, from its head and its tail, without reading it all.
//
// The head gives the session id, the cwd and the first prompt: ReadInfo
// reads the file's first 16 KiB and reads on, doubling, until it has
// them, at most [InfoLimit] bytes. The tail gives the last titles and the
// last time: it reads the last 16 KiB, and further back, doubling, until
// it has a line with a time, at most InfoLimit bytes. Most files cost one
// 16 KiB read at each end; a file shorter than that one read in all. The
// CLI appends its title entries again as the session goes on, which keeps
// the last one near the end; a title only in the middle of a long file
// is not found.
//
// The first prompt is the first user entry that holds the person's words
// (not meta, not a subagent's, not a tool result), skipping the texts
// the CLI writes itself as prompts: a slash command's "<command-name>"
// stands for the prompt only when no other prompt follows, and local
// command output, hook and IDE context tags are skipped, as the official
// Claude Agent SDK does.
//
// Lines that are not JSON are skipped. ReadInfo returns an error only
// when r fails, [io.ErrUnexpectedEOF] when it holds fewer than size bytes.
func ReadInfo(r io.ReaderAt, size int64) (Info, error) {
	var s infoScan
	head := func(line []byte) {
		if e, err := s.er.read(line); err == nil {
			s.head(e)
		}
	}
	tail := func(line []byte) {
		if e, err := s.er.read(line); err == nil {
			s.tail(e)
		}
	}
	readTail, err := storefile.HeadTail(r, size, InfoLimit, head, s.needHead, tail, func() bool { return s.tailUpdated == 0 })
	if err != nil {
		return Info{}, err
	}
	if readTail {
		s.updated = s.tailUpdated // the head's is not the last
	}
	return s.info(), nil
}

// infoScan gathers an Info from the lines of a file's head, in order, and
// then of its tail, from the last.
type infoScan struct {
	er                   entryReader
	sessionID, cwd       string
	prompt, command      string    // the first prompt; the first slash command
	updated, tailUpdated int64     // the last time of the head, the tail's
	headTitle, tailTitle [3]string // by titleRank
}

// titleRank orders the CLI's title entries, the first winning.
func titleRank(typ string) int {
	switch typ {
	case "custom-title":
		return 0
	case "ai-title":
		return 1
	}
	return 2 // summary
}

func (s *infoScan) needHead() bool {
	return s.sessionID == "" || s.cwd == "" || s.prompt == ""
}

func (s *infoScan) head(e Entry) {
	if s.sessionID == "" {
		s.sessionID = e.SessionID
	}
	if s.cwd == "" {
		s.cwd = e.CWD
	}
	if e.Title != "" {
		s.headTitle[titleRank(e.Type)] = e.Title
	}
	if e.Timestamp != 0 {
		s.updated = e.Timestamp // the last one read, if the head is all
	}
	if s.prompt == "" && e.Prompt != nil && !e.Meta && !e.Sidechain {
		text := strings.TrimSpace(e.Prompt.Text())
		switch {
		case text == "":
		case commandName.MatchString(text):
			if s.command == "" {
				s.command = commandName.FindStringSubmatch(text)[1]
			}
		case !skipPrompt.MatchString(text):
			s.prompt = storefile.OneLine(text)
		}
	}
}

func (s *infoScan) tail(e Entry) {
	if e.Title != "" && s.tailTitle[titleRank(e.Type)] == "" {
		s.tailTitle[titleRank(e.Type)] = e.Title
	}
	if s.tailUpdated == 0 {
		s.tailUpdated = e.Timestamp
	}
}

func (s *infoScan) info() Info {
	in := Info{SessionID: s.sessionID, CWD: s.cwd, Updated: s.updated}
	for i := range s.tailTitle {
		if t := firstNonEmpty(s.tailTitle[i], s.headTitle[i]); t != "" {
			in.Title, in.Named = storefile.OneLine(t), true
			return in
		}
	}
	in.Title = firstNonEmpty(s.prompt, storefile.OneLine(s.command))
	return in
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// commandName finds a slash command the CLI stored as a prompt.
var commandName = regexp.MustCompile(`<command-name>(.*?)</command-name>`)

// skipPrompt matches the texts the CLI writes in a user entry that are not
// the person's prompt.
var skipPrompt = regexp.MustCompile(`^(?:<local-command-stdout>|<local-command-caveat>|<session-start-hook>|<tick>|<goal>|` +
	`\[Request interrupted by user[^\]]*\]|` +
	`\s*<ide_opened_file>[\s\S]*</ide_opened_file>\s*$|` +
	`\s*<ide_selection>[\s\S]*</ide_selection>\s*$)`)
