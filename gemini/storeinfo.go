package gemini

import (
	"io"
	"strings"

	"github.com/acpkit/acpkit/internal/storefile"
)

// InfoLimit is the most bytes [ReadInfo] reads at each end of a file.
const InfoLimit = 1 << 20

// Info is what a list of sessions shows of one stored session.
type Info struct {
	// SessionID is the session id the file's metadata record names; ""
	// when the lines read have none. A file's name holds only its first 8
	// digits (see [ParseSessionFile]).
	SessionID string
	// CWD is always "": the session file does not name its cwd. The
	// project's entry in [ProjectsFile] does, and ProjectHash tells which
	// cwd it is.
	CWD string
	// ProjectHash is [ProjectHash] of the session's cwd, from the
	// metadata record; "" when the lines read have none.
	ProjectHash string
	// Title is the session's summary, the CLI's own title (the last
	// record that sets one), else the text of the person's first prompt;
	// on one line, cut to 200 characters; "" when there is neither.
	Title string
	// Named reports that Title is the session's summary rather than its
	// first prompt.
	Named bool
	// Updated is the time of the last record that has one (a message's
	// time, or the lastUpdated a record sets), in Unix epoch
	// milliseconds; 0 when none of the lines read has one.
	Updated int64
	// HasMessages reports that the lines read hold a message of the
	// person or of the model (a user or gemini message, of a record of
	// its own or of a $set list; the CLI's preamble is not one): the CLI
	// lists only such sessions. A chat of a run that ended before it sent
	// a prompt, such as one whose authentication failed, or the one each
	// process of the CLI's ACP mode starts with, holds none.
	HasMessages bool
}

// ReadInfo reads what a list of sessions shows of the session file r,
// size bytes long, from its head and its tail, without reading it all.
//
// The head gives the session id, the project hash and the first prompt:
// ReadInfo reads the file's first 16 KiB and reads on, doubling, until it
// has them, at most [InfoLimit] bytes. The tail gives the summary and the
// last time: it reads the last 16 KiB, and further back, doubling, until
// it has a line with a time, at most InfoLimit bytes. A summary set only
// in the middle of a long file is not found.
//
// Lines that are not JSON are skipped. ReadInfo returns an error only
// when r fails, [io.ErrUnexpectedEOF] when it holds fewer than size bytes.
func ReadInfo(r io.ReaderAt, size int64) (Info, error) {
	var s infoScan
	head := func(line []byte) {
		if e, err := readRecord(line); err == nil {
			s.head(e)
		}
	}
	tail := func(line []byte) {
		if e, err := readRecord(line); err == nil {
			s.tail(e)
		}
	}
	needHead := func() bool { return s.in.SessionID == "" || s.prompt == "" }
	readTail, err := storefile.HeadTail(r, size, InfoLimit, head, needHead, tail, func() bool { return s.tailUpdated == 0 })
	if err != nil {
		return Info{}, err
	}
	if readTail {
		s.in.Updated = s.tailUpdated // the head's is not the last
	}
	s.in.Title = s.prompt
	if t := firstNonEmpty(s.tailTitle, s.headTitle); t != "" {
		s.in.Title, s.in.Named = storefile.OneLine(t), true
	}
	return s.in, nil
}

// infoScan gathers an Info from the records of a file's head, in order,
// and then of its tail, from the last.
type infoScan struct {
	in                   Info
	prompt               string
	headTitle, tailTitle string
	tailUpdated          int64
}

// recordTime is the time a record gives: a message's, or the lastUpdated
// it sets.
func recordTime(e Entry) int64 {
	if e.Set != nil && e.Set.LastUpdated != 0 {
		return e.Set.LastUpdated
	}
	return e.Timestamp
}

// conversational reports whether a record is, or sets, a message of the
// person (not the CLI's preamble) or of the model.
func conversational(e Entry) bool {
	if e.Record == RecordMessage {
		return e.Type == "user" && !e.Meta || e.Type == "gemini"
	}
	if e.Set != nil {
		for _, m := range e.Set.Messages {
			if m.Type == "user" && !m.Meta || m.Type == "gemini" {
				return true
			}
		}
	}
	return false
}

func (s *infoScan) head(e Entry) {
	s.in.HasMessages = s.in.HasMessages || conversational(e)
	if e.Record == RecordMetadata && s.in.SessionID == "" {
		s.in.SessionID, s.in.ProjectHash = e.Set.SessionID, e.Set.ProjectHash
	}
	if e.Title != "" {
		s.headTitle = e.Title
	}
	if t := recordTime(e); t != 0 {
		s.in.Updated = t
	}
	if s.prompt == "" && e.Type == "user" && !e.Meta {
		if text := strings.TrimSpace(e.Prompt.Text()); text != "" {
			s.prompt = storefile.OneLine(text)
		}
	}
}

func (s *infoScan) tail(e Entry) {
	s.in.HasMessages = s.in.HasMessages || conversational(e)
	if e.Title != "" && s.tailTitle == "" {
		s.tailTitle = e.Title
	}
	if s.tailUpdated == 0 {
		s.tailUpdated = recordTime(e)
	}
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
