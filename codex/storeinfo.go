package codex

import (
	"io"
	"strings"

	"github.com/acpkit/acpkit/internal/storefile"
)

// InfoLimit is the most bytes [ReadInfo] reads at each end of a file.
const InfoLimit = 1 << 20

// Info is what a list of sessions shows of one stored session (a thread).
type Info struct {
	// SessionID is the thread id the file's session_meta line names; ""
	// when the lines read have none. A file's name holds the id too (see
	// [ParseSessionFile]).
	SessionID string
	// CWD is the directory the thread ran in, from its session_meta line
	// (the path does not say); "" when the lines read have none.
	CWD string
	// Title is the thread's name (the last thread_name_updated), else the
	// text of the person's first prompt, as the CLI's own thread index
	// titles a thread; on one line, cut to 200 characters; "" when there
	// is neither.
	Title string
	// Named reports that Title is the thread's name rather than its
	// first prompt.
	Named bool
	// Updated is the time of the last line, in Unix epoch milliseconds; 0
	// when none of the lines read has one.
	Updated int64
}

// ReadInfo reads what a list of sessions shows of the rollout file r,
// size bytes long, from its head and its tail, without reading it all.
//
// The head gives the thread id, the cwd and the first prompt: ReadInfo
// reads the file's first 16 KiB and reads on, doubling, until it has
// them, at most [InfoLimit] bytes; the session_meta line that opens the
// file holds the CLI's whole system prompt, so a first prompt is
// typically some 40 KB in. The tail gives the name and the last time: it
// reads the last 16 KiB, and further back, doubling, until it has a line
// with a time, at most InfoLimit bytes.
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
	needHead := func() bool { return s.sessionID == "" || s.prompt == "" }
	readTail, err := storefile.HeadTail(r, size, InfoLimit, head, needHead, tail, func() bool { return s.tailUpdated == 0 })
	if err != nil {
		return Info{}, err
	}
	if readTail {
		s.updated = s.tailUpdated // the head's is not the last
	}
	name := firstNonEmpty(s.tailTitle, s.headTitle)
	return Info{SessionID: s.sessionID, CWD: s.cwd, Title: firstNonEmpty(name, s.prompt), Named: name != "", Updated: s.updated}, nil
}

// infoScan gathers an Info from the lines of a file's head, in order, and
// then of its tail, from the last.
type infoScan struct {
	er                   entryReader
	sessionID, cwd       string
	prompt               string
	headTitle, tailTitle string
	updated, tailUpdated int64
}

func (s *infoScan) head(e Entry) {
	if e.Type == "session_meta" && s.sessionID == "" {
		s.sessionID, s.cwd = e.SessionID, e.CWD
	}
	if e.Title != "" {
		s.headTitle = storefile.OneLine(e.Title)
	}
	if e.Timestamp != 0 {
		s.updated = e.Timestamp
	}
	if s.prompt == "" && e.Prompt != nil {
		if text := e.Prompt.Text(); !contextText(text) {
			s.prompt = storefile.OneLine(text)
		}
	}
}

func (s *infoScan) tail(e Entry) {
	if e.Title != "" && s.tailTitle == "" {
		s.tailTitle = storefile.OneLine(e.Title)
	}
	if s.tailUpdated == 0 {
		s.tailUpdated = e.Timestamp
	}
}

// contextText reports a text the CLI sends as a user message of its own:
// the environment and the user's instructions, which older rollouts
// recorded as prompts.
func contextText(text string) bool {
	text = strings.TrimSpace(text)
	return text == "" || strings.HasPrefix(text, "<environment_context>") || strings.HasPrefix(text, "<user_instructions>")
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
