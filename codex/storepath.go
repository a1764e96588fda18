package codex

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/acpkit/acpkit/internal/storefile"
)

// Where Codex keeps its sessions. The paths below are relative to the
// sessions folder, $CODEX_HOME/sessions, which is $HOME/.codex/sessions by
// default, and use forward slashes, as an [io/fs.FS] rooted there wants
// them:
//
//	YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<thread id>.jsonl
//
// the date and time being the thread's start in the local time of the
// machine the CLI ran on. A resumed thread goes on in its first file; the
// cwd is not part of the path, only of the file (see [ReadInfo]).

// ErrInvalidSessionID is wrapped by the error of a function given a
// thread id that is not in the CLI's format, so that no id from outside
// can name a path outside the store.
var ErrInvalidSessionID = errors.New("codex: invalid session id")

// ValidSessionID reports whether id is a thread id in Codex's format, a
// UUID written as 32 hexadecimal digits in groups of 8-4-4-4-12 separated
// by hyphens, such as "01a23365-0657-7662-80b4-4726987395b1" (Codex
// 0.169.0 makes them UUIDv7, older releases UUIDv4). Such an id is safe
// as part of a path: it holds no separator, no dot and no pattern
// character.
func ValidSessionID(id string) bool { return storefile.ValidUUID(id) }

// rolloutTime is the layout of a rollout's start in its file name.
const rolloutTime = "2006-01-02T15-04-05"

// SessionFile returns the path of the rollout file of thread id started
// at start, relative to the sessions folder. Pass start in the zone of
// the machine the CLI runs on: the path holds its wall clock. It fails,
// wrapping [ErrInvalidSessionID], when id is not a valid thread id.
func SessionFile(start time.Time, id string) (string, error) {
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return start.Format("2006/01/02/") + "rollout-" + start.Format(rolloutTime) + "-" + id + ".jsonl", nil
}

// SessionFilePattern returns the pattern, for [io/fs.Glob] over the
// sessions folder, that matches the rollout file of thread id whatever
// its start. It fails as [SessionFile] does.
func SessionFilePattern(id string) (string, error) {
	if !ValidSessionID(id) {
		return "", invalidID(id)
	}
	return "[0-9][0-9][0-9][0-9]/[0-9][0-9]/[0-9][0-9]/rollout-*-" + id + ".jsonl", nil
}

// ParseSessionFile returns the thread id and the start that a rollout
// file's name holds ("rollout-2026-12-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea53.jsonl"),
// the start read as a wall clock in loc (nil for UTC), and whether name
// is such a name, with a valid id.
func ParseSessionFile(name string, loc *time.Location) (id string, start time.Time, ok bool) {
	rest, ok := strings.CutPrefix(name, "rollout-")
	if !ok {
		return "", time.Time{}, false
	}
	rest, ok = strings.CutSuffix(rest, ".jsonl")
	if !ok || len(rest) != len(rolloutTime)+1+36 || rest[len(rolloutTime)] != '-' {
		return "", time.Time{}, false
	}
	id = rest[len(rolloutTime)+1:]
	if loc == nil {
		loc = time.UTC
	}
	start, err := time.ParseInLocation(rolloutTime, rest[:len(rolloutTime)], loc)
	if err != nil || !ValidSessionID(id) {
		return "", time.Time{}, false
	}
	return id, start, true
}

// invalidID is the error for an id that is not valid.
func invalidID(id string) error {
	return fmt.Errorf("%w: %s", ErrInvalidSessionID, storefile.QuoteID(id))
}
