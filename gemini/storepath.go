package gemini

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/acpkit/acpkit/internal/storefile"
)

// Where the Gemini CLI keeps its sessions. The paths below are relative
// to the CLI's folder, $HOME/.gemini, and use forward slashes, as an
// [io/fs.FS] rooted there wants them:
//
//	projects.json                                       cwd → project name
//	tmp/<project>/chats/session-<start>-<id8>.jsonl     a session
//
// <start> is when the session started, in UTC to the minute
// (2026-12-01T21-06), and <id8> the first 8 hexadecimal digits of its id,
// which two sessions may share: the file's metadata record has the whole
// id (see [ReadInfo]). A resumed session goes on in its file. The file
// does not name the cwd; its projectHash is [ProjectHash] of it.

// ProjectsFile is the file, in the CLI's folder, that maps each cwd to
// its project's name (see [ReadProjects]).
const ProjectsFile = "projects.json"

// ErrInvalidSessionID is wrapped by the error of a function given a
// session id that is not in the CLI's format, so that no id from outside
// can name a path outside the store.
var ErrInvalidSessionID = errors.New("gemini: invalid session id")

// ErrInvalidProject is wrapped by the error of a function given a project
// name that is not one element of a path.
var ErrInvalidProject = errors.New("gemini: invalid project name")

// ValidSessionID reports whether id is a session id in the Gemini CLI's
// format, a UUID written as 32 hexadecimal digits in groups of 8-4-4-4-12
// separated by hyphens, such as "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1".
// Such an id is safe as part of a path: it holds no separator, no dot and
// no pattern character.
func ValidSessionID(id string) bool { return storefile.ValidUUID(id) }

// validProject reports whether name is one element of a path: not empty,
// not "." or "..", without a separator, a NUL or a pattern character, at
// most 255 bytes.
func validProject(name string) bool {
	return name != "" && name != "." && name != ".." && len(name) <= 255 && !strings.ContainsAny(name, "/\\\x00*?[")
}

// ChatsDir returns the folder, relative to the CLI's folder, that holds
// the sessions of project (its name in [ProjectsFile]). It fails, wrapping
// [ErrInvalidProject], when project is not one element of a path.
func ChatsDir(project string) (string, error) {
	if !validProject(project) {
		return "", fmt.Errorf("%w: %s", ErrInvalidProject, storefile.QuoteID(project))
	}
	return "tmp/" + project + "/chats", nil
}

// sessionTime is the layout of a session's start in its file name.
const sessionTime = "2006-01-02T15-04"

// SessionFile returns the path of the file of session id, started at
// start, of project, relative to the CLI's folder. It fails as
// [ChatsDir] does, or, wrapping [ErrInvalidSessionID], when id is not a
// valid session id.
func SessionFile(project string, start time.Time, id string) (string, error) {
	dir, err := ChatsDir(project)
	if err != nil {
		return "", err
	}
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return dir + "/session-" + start.UTC().Format(sessionTime) + "-" + id[:8] + ".jsonl", nil
}

// SessionFilePattern returns the pattern, for [io/fs.Glob] inside a
// [ChatsDir], that matches the files of sessions whose ids start as id's
// does, whatever their start; the metadata record of each match says
// whether it is id's. It fails as [SessionFile] does.
func SessionFilePattern(id string) (string, error) {
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return "session-*-" + id[:8] + ".jsonl", nil
}

// ParseSessionFile returns the first 8 hexadecimal digits of the session
// id and the start (UTC, to the minute) that a session file's name holds
// ("session-2026-12-01T21-06-e8280112.jsonl"), and whether name is such a
// name.
func ParseSessionFile(name string) (shortID string, start time.Time, ok bool) {
	rest, ok := strings.CutPrefix(name, "session-")
	if !ok {
		return "", time.Time{}, false
	}
	rest, ok = strings.CutSuffix(rest, ".jsonl")
	if !ok || len(rest) != len(sessionTime)+1+8 || rest[len(sessionTime)] != '-' {
		return "", time.Time{}, false
	}
	shortID = rest[len(sessionTime)+1:]
	start, err := time.Parse(sessionTime, rest[:len(sessionTime)])
	if err != nil || !storefile.ValidUUID(shortID+"-0000-0000-0000-000000000000") {
		return "", time.Time{}, false
	}
	return shortID, start, true
}

// ProjectHash returns the "projectHash" by which a session file names its
// cwd: the SHA-256 of the cwd, in lowercase hexadecimal.
func ProjectHash(cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return hex.EncodeToString(sum[:])
}

// ReadProjects reads the CLI's [ProjectsFile] and returns the name of each
// cwd's project ({"projects": {"<cwd>": "<project>"}}), the names that
// are not one element of a path left out. It fails when r does or when
// the file is not such an object.
func ReadProjects(r io.Reader) (map[string]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, err
	}
	var f struct {
		Projects map[string]string `json:"projects"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("gemini: invalid %s: %w", ProjectsFile, err)
	}
	out := make(map[string]string, len(f.Projects))
	for cwd, name := range f.Projects {
		if validProject(name) {
			out[cwd] = name
		}
	}
	return out, nil
}

// invalidID is the error for an id that is not valid.
func invalidID(id string) error {
	return fmt.Errorf("%w: %s", ErrInvalidSessionID, storefile.QuoteID(id))
}
