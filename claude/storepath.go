package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/acpkit/acpkit/internal/storefile"
)

// Where Claude Code keeps its sessions. The paths below are relative to
// the projects folder, $CLAUDE_CONFIG_DIR/projects, which is
// $HOME/.claude/projects by default, and use forward slashes, as an
// [io/fs.FS] rooted there wants them:
//
//	<ProjectFolder(cwd)>/<session id>.jsonl                        the session
//	<ProjectFolder(cwd)>/<session id>/subagents/agent-<id>.jsonl   a subagent's session
//	<ProjectFolder(cwd)>/<session id>/subagents/agent-<id>.meta.json
//	<ProjectFolder(cwd)>/<session id>/custom-title.json            after /rename
//
// A resumed session (--resume, --continue) goes on in its file; a forked
// one (--fork-session) starts a new file that copies the history first.

// ErrInvalidSessionID is wrapped by the error of a function given a
// session id that is not in the CLI's format, so that no id from outside
// can name a path outside the store.
var ErrInvalidSessionID = errors.New("claude: invalid session id")

// ValidSessionID reports whether id is a session id in Claude Code's
// format, a UUID written as 32 hexadecimal digits in groups of 8-4-4-4-12
// separated by hyphens, such as "5474356c-702e-48b0-8ecb-5f54d4bff9a2".
// Such an id is safe as one element of a path: it holds no separator, no
// dot and no other byte a path could misread.
func ValidSessionID(id string) bool { return storefile.ValidUUID(id) }

// maxFolderLength is how much of a cwd's folder name Claude Code keeps
// before it cuts the name and appends a hash, leaving room under the 255
// bytes a file name may take.
const maxFolderLength = 200

// ProjectFolder returns the name of the folder in which Claude Code keeps
// the sessions it runs in cwd: cwd with every UTF-16 code unit outside
// [A-Za-z0-9] replaced by '-' (so a character outside the Basic
// Multilingual Plane becomes "--"), without Unicode normalization. A name
// longer than 200 characters is cut to 200 and gets '-' and a hash of cwd
// appended: the hash the Claude Agent SDKs compute under Node.js (djb2
// over the UTF-16 code units, as a 32-bit integer, its absolute value in
// base 36). The CLI built with Bun uses Bun's hash there instead, so to
// find the folder of a long cwd, match names with [IsProjectFolder].
func ProjectFolder(cwd string) string {
	name, cut := folderPrefix(cwd)
	if !cut {
		return name
	}
	return name + "-" + djb2Base36(cwd)
}

// IsProjectFolder reports whether name is the folder of cwd's sessions:
// [ProjectFolder](cwd) itself, or, for a cwd whose name is cut, the cut
// name followed by '-' and any hash of base-36 digits, whichever hash
// the CLI that wrote it used. Two cwds whose names are cut alike share
// the folder names that match; the cwd in the sessions' entries tells
// them apart.
func IsProjectFolder(name, cwd string) bool {
	prefix, cut := folderPrefix(cwd)
	if !cut {
		return name == prefix
	}
	hash, ok := strings.CutPrefix(name, prefix+"-")
	if !ok || hash == "" {
		return false
	}
	for i := 0; i < len(hash); i++ {
		if c := hash[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// folderPrefix returns cwd's folder name up to its cut, and whether it
// was cut.
func folderPrefix(cwd string) (string, bool) {
	var b strings.Builder
	n := 0
	for _, r := range cwd {
		for range max(utf16.RuneLen(r), 1) { // a surrogate pair is two
			if n == maxFolderLength {
				return b.String(), true
			}
			if r < 0x80 && ('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('-')
			}
			n++
		}
	}
	return b.String(), false
}

// djb2Base36 is the hash the Claude Agent SDKs append to a cut folder
// name: h = h*31 + unit over cwd's UTF-16 code units, in 32-bit signed
// arithmetic, then |h| in base 36.
func djb2Base36(cwd string) string {
	var h int32
	for _, u := range utf16.Encode([]rune(cwd)) {
		h = h<<5 - h + int32(u)
	}
	a := int64(h)
	if a < 0 {
		a = -a
	}
	return strconv.FormatInt(a, 36)
}

// SessionFile returns the path of the file of session id, run in cwd,
// relative to the projects folder. It fails, wrapping
// [ErrInvalidSessionID], when id is not a valid session id.
func SessionFile(cwd, id string) (string, error) {
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return ProjectFolder(cwd) + "/" + id + ".jsonl", nil
}

// SessionFilePattern returns the pattern, for [io/fs.Glob] over the
// projects folder, that matches the file of session id whatever its cwd,
// for a session known by its id alone. It fails as [SessionFile] does.
func SessionFilePattern(id string) (string, error) {
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return "*/" + id + ".jsonl", nil
}

// SessionDir returns the path of the folder beside the file of session
// id that holds the session's subagents and its custom-title.json,
// relative to the projects folder, as [SessionFile] does.
func SessionDir(cwd, id string) (string, error) {
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return ProjectFolder(cwd) + "/" + id, nil
}

// SubagentsDir is the folder, inside a session's [SessionDir], that holds
// its subagents' files.
const SubagentsDir = "subagents"

// SubagentFile returns the name of a subagent's session file, inside a
// session's [SubagentsDir]: "agent-<agentID>.jsonl"; its meta file has
// ".meta.json" in place of ".jsonl". It fails when agentID is not the
// CLI's kind of agent id (letters and digits), which keeps it one element
// of a path.
func SubagentFile(agentID string) (string, error) {
	if !validAgentID(agentID) {
		return "", fmt.Errorf("claude: invalid agent id %q", agentID)
	}
	return "agent-" + agentID + ".jsonl", nil
}

// ParseSubagentFile returns the agent id that a subagent's file name
// holds ("agent-a7407c38efeb483c1.jsonl" holds "a7407c38efeb483c1"), and
// whether name is such a name: a meta file's name, for one, is not.
func ParseSubagentFile(name string) (agentID string, ok bool) {
	id, ok := strings.CutPrefix(name, "agent-")
	if !ok {
		return "", false
	}
	id, ok = strings.CutSuffix(id, ".jsonl")
	if !ok || !validAgentID(id) {
		return "", false
	}
	return id, true
}

// validAgentID reports whether id is a non-empty run of ASCII letters and
// digits, at most 64 of them.
func validAgentID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// ParseSessionFile returns the session id that a session file's name
// holds ("5474356c-702e-48b0-8ecb-5f54d4bff9a2.jsonl"), and whether name
// is such a name, with a valid id.
func ParseSessionFile(name string) (id string, ok bool) {
	id, ok = strings.CutSuffix(name, ".jsonl")
	if !ok || !ValidSessionID(id) {
		return "", false
	}
	return id, true
}

// invalidID is the error for an id that is not valid.
func invalidID(id string) error {
	return fmt.Errorf("%w: %s", ErrInvalidSessionID, storefile.QuoteID(id))
}

// SubagentMeta is what a subagent's ".meta.json" file says of it.
type SubagentMeta struct {
	// AgentType is the kind of agent ("general-purpose", "Explore", …).
	AgentType string
	// Description is the task's short description, from the call.
	Description string
	// ToolUseID is the id of the parent session's Agent (or Task) tool
	// call that launched the subagent: the ParentToolUseID of its events
	// (see [ReadSubagent]).
	ToolUseID string
	// Raw is the whole file, for its other members.
	Raw json.RawMessage
}

// ReadSubagentMeta reads a subagent's ".meta.json" file. It fails when r
// does, or when the file is not a JSON object.
func ReadSubagentMeta(r io.Reader) (SubagentMeta, error) {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return SubagentMeta{}, err
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return SubagentMeta{}, errors.New("claude: subagent meta is not a JSON object")
	}
	var m struct {
		AgentType   string `json:"agentType"`
		Description string `json:"description"`
		ToolUseID   string `json:"toolUseId"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return SubagentMeta{}, fmt.Errorf("claude: invalid subagent meta: %w", err)
	}
	return SubagentMeta{AgentType: m.AgentType, Description: m.Description, ToolUseID: m.ToolUseID, Raw: data}, nil
}
