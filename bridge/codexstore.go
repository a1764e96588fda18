package bridge

import (
	"io"
	"io/fs"
	"iter"
	"path"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/codex"
)

// Codex's threads on disk (package codex's "Stored sessions"): rollout
// files under its sessions folder, YYYY/MM/DD/rollout-<start>-<id>.jsonl;
// the cwd is only inside the file.

// StoreDir is $CODEX_HOME/sessions, or ~/.codex/sessions.
func (codexCLI) StoreDir(home string, getenv func(string) string) string {
	return homeStore(home, getenv, "CODEX_HOME", ".codex", "sessions")
}

func (codexCLI) ValidID(id string) bool { return codex.ValidSessionID(id) }

// Files yields every rollout file, whatever cwd: only the file says
// where its thread ran.
func (codexCLI) Files(store fs.FS, cwd string) iter.Seq2[StoredFile, error] {
	parse := func(name string) (string, bool) {
		id, _, ok := codex.ParseSessionFile(name, time.UTC)
		return id, ok
	}
	return func(yield func(StoredFile, error) bool) {
		for day, err := range dateDirs(store) {
			if err != nil {
				if !yield(StoredFile{}, err) {
					return
				}
				continue
			}
			for f, err := range dirFiles(store, day, parse) {
				if !yield(f, err) {
					return
				}
			}
		}
	}
}

// dateDirs yields the YYYY/MM/DD folders of store.
func dateDirs(store fs.FS) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		var walk func(dir string, digits []int) bool
		walk = func(dir string, digits []int) bool {
			if len(digits) == 0 {
				return yield(dir, nil)
			}
			entries, err := fs.ReadDir(store, dir)
			if err != nil {
				return yield("", err)
			}
			for _, e := range entries {
				if e.IsDir() && len(e.Name()) == digits[0] && allDigits(e.Name()) && !walk(path.Join(dir, e.Name()), digits[1:]) {
					return false
				}
			}
			return true
		}
		walk(".", []int{4, 2, 2})
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (codexCLI) ReadInfo(f StoredFile, r io.ReaderAt) (StoredInfo, error) {
	in, err := codex.ReadInfo(r, f.Size)
	if err != nil {
		return StoredInfo{}, err
	}
	return StoredInfo{SessionID: f.ID, CWD: in.CWD, Title: in.Title, Named: in.Named, Updated: epochTime(in.Updated)}, nil
}

func (codexCLI) Find(store fs.FS, id, cwd string) (StoredFile, error) {
	pattern, err := codex.SessionFilePattern(id)
	if err != nil {
		return StoredFile{}, err
	}
	return globFile(store, pattern, id)
}

func (codexCLI) Remove(store Store, f StoredFile) error { return store.RemoveAll(f.Path) }

func (c *codexConversation) StoredID() string { return c.threadID }

// Replay translates the rollout's items as the turn that made them did,
// each tool call announced as it started before its end.
func (c *codexConversation) Replay(h Host, store fs.FS, f StoredFile) error {
	file, err := store.Open(f.Path)
	if err != nil {
		return err
	}
	defer file.Close()
	r := codexRender{notices: true} // replayHost shows errors to a client without notices
	var updates []acp.Update
	for e := range readable[codex.Entry, *codex.LineError](codex.ReadEntries(file), c.cfg.Logger, f.Path, &err) {
		if e.Internal || e.Interrupt {
			continue
		}
		if e.Prompt != nil {
			h.Notify(userChunks(storedPrompt(e.Prompt, promptBlocks))...)
		}
		for _, ev := range e.Events {
			if start, ok := codexStart(ev); ok {
				updates = r.render(updates[:0], start)
				h.Notify(updates...)
			}
			updates = r.render(updates[:0], ev)
			h.Notify(updates...)
		}
	}
	return err
}

// codexStart returns the item event that the live stream printed when
// the completed item ev started, which the rollout does not keep.
func codexStart(ev codex.Event) (codex.Event, bool) {
	switch ev := ev.(type) {
	case codex.CommandExecution:
		if ev.Phase == codex.PhaseCompleted {
			return codex.CommandExecution{ItemID: ev.ItemID, Phase: codex.PhaseStarted, Kind: ev.Kind, Command: ev.Command, Status: codex.StatusInProgress}, true
		}
	case codex.FileChange:
		if ev.Phase == codex.PhaseCompleted {
			return codex.FileChange{ItemID: ev.ItemID, Phase: codex.PhaseStarted, Kind: ev.Kind, Changes: ev.Changes, Status: codex.StatusInProgress}, true
		}
	case codex.WebSearch:
		if ev.Phase == codex.PhaseCompleted {
			return codex.WebSearch{ItemID: ev.ItemID, Phase: codex.PhaseStarted, Kind: ev.Kind}, true
		}
	case codex.MCPToolCall:
		if ev.Phase == codex.PhaseCompleted {
			return codex.MCPToolCall{ItemID: ev.ItemID, Phase: codex.PhaseStarted, Kind: ev.Kind, Server: ev.Server, Tool: ev.Tool, Arguments: ev.Arguments, Status: codex.StatusInProgress}, true
		}
	}
	return nil, false
}
