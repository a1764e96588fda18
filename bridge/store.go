package bridge

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/storefile"
)

// This file is what the Agent does with the sessions a CLI keeps on disk:
// session/list, the file session/load replays, session/delete, and the
// titles the CLI writes there. What differs between the CLIs (the layout
// of their folders, the format of their files) is behind [Keeper].

// Store is the folder where a CLI keeps its sessions, as a program hands
// it to the Agent ([Config.Store]): session/list and session/load read
// it, session/delete removes from it, and the Agent reaches nothing
// outside it. Names are slash-separated paths inside it, as [fs.FS] takes
// them; its files must implement [io.ReaderAt] or [io.Seeker], so that a
// list reads a file's head and tail only. Package bridgeos has the
// operating system's. Its methods may be called concurrently.
type Store interface {
	fs.FS
	// RemoveAll removes the file or folder name, and everything in the
	// folder; it returns nil when name does not exist.
	RemoveAll(name string) error
}

// Keeper is a [CLI] that keeps its sessions in a [Store] whose layout it
// knows, so that an Agent lists them (session/list), replays one
// (session/load) and deletes one (session/delete). [Claude], [Codex] and
// [Gemini] are Keepers. Its methods read and remove only through the
// Store they are given, and may be called concurrently.
type Keeper interface {
	CLI
	// StoreDir returns the folder where the CLI keeps its sessions, for
	// a user whose home folder is home and whose environment getenv
	// reads: what a program opens as the Agent's Store.
	StoreDir(home string, getenv func(string) string) string
	// ValidID reports whether id is a session id in the CLI's format,
	// which the Agent checks before it hands an id from the editor to
	// Find: such an id names no path outside the Store.
	ValidID(id string) bool
	// Files yields, without reading them, the files of store that may
	// hold sessions run in cwd ("" for every directory).
	Files(store fs.FS, cwd string) iter.Seq2[StoredFile, error]
	// ReadInfo reads what session/list shows of the session in f, whose
	// contents r reads, from the file's head and tail.
	ReadInfo(f StoredFile, r io.ReaderAt) (StoredInfo, error)
	// Find returns the file of session id, a valid id, run in cwd (""
	// when unknown); an error wrapping fs.ErrNotExist when there is
	// none.
	Find(store fs.FS, id, cwd string) (StoredFile, error)
	// Remove removes the files of session f from store.
	Remove(store Store, f StoredFile) error
}

// Replayer is a [Conversation] of a [Keeper]'s that shows its stored
// conversation again, for session/load.
type Replayer interface {
	Conversation
	// Replay shows the conversation stored in f through h, in order, as
	// its live turns showed it: the person's prompts as
	// user_message_chunk, then what the CLI did. It is called before
	// the session's first process starts, or between turns, and leaves
	// the Conversation as it was. It returns the error that stopped it,
	// f's entries that cannot be read skipped.
	Replay(h Host, store fs.FS, f StoredFile) error
	// StoredID returns the id the CLI keeps the conversation under; ""
	// until the CLI has named one.
	StoredID() string
}

// StoredFile is a file of a [Store] that holds a session.
type StoredFile struct {
	// Path is its name in the Store.
	Path string
	// ModTime is when it was last written, and Size its length in
	// bytes, as the Store's file info gives them.
	ModTime time.Time
	Size    int64
	// ID is the session id the file's name holds, or the start of it
	// (Gemini CLI's names hold 8 digits); "" when the name holds none.
	ID string
	// CWD is the directory the session ran in, when the Store's layout
	// says it (Gemini CLI's projects.json); "" otherwise.
	CWD string
}

// StoredInfo is what session/list shows of a stored session.
type StoredInfo struct {
	SessionID string
	CWD       string // an absolute path; "" when the file does not say
	// Title is the session's title, or the text of its first prompt;
	// "" for none. Named reports that it is a title.
	Title string
	Named bool
	// Updated is the time of the session's last entry; zero when the
	// file does not say.
	Updated time.Time
}

// listPage is how many sessions a page of session/list holds.
const listPage = 100

// storeList keeps what session/list read of each file, so that a file
// is read again only once it has changed.
type storeList struct {
	mu    sync.Mutex
	infos map[string]cachedInfo // by path
}

type cachedInfo struct {
	mod  time.Time
	size int64
	info StoredInfo
	ok   bool // the file could be read
}

// listed is an entry of a session/list page, and where it sits in the
// list's order: newest first, then by key.
type listed struct {
	at   time.Time
	key  string // a file's path, or "\x00" and an open session's id
	info acp.SessionInfo
}

func (l listed) before(m listed) int {
	return cmp.Or(m.at.Compare(l.at), strings.Compare(l.key, m.key))
}

// list answers session/list: the stored sessions of the CLI, newest first
// by the time their file was written, with the sessions open here that
// have none yet, a page at a time. It reads the list facts of the files
// of the page only, and of each file only once until it changes.
func (a *Agent) list(ctx context.Context, p acp.ListSessionsParams) (acp.ListSessionsResult, error) {
	if p.Cwd != "" && !filepath.IsAbs(p.Cwd) {
		return acp.ListSessionsResult{}, acp.Errorf(acp.CodeInvalidParams, "cwd %q is not an absolute path", p.Cwd)
	}
	var after *listed
	if p.Cursor != "" {
		c, err := decodeCursor(p.Cursor)
		if err != nil {
			return acp.ListSessionsResult{}, err
		}
		after = &c
	}
	open := a.openSessions(p.Cwd)
	var files []StoredFile
	if a.keeper != nil && a.cfg.Store != nil {
		for f, err := range a.keeper.Files(a.cfg.Store, p.Cwd) {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					a.log.Warn("listing the stored sessions", "error", err)
				}
				continue
			}
			files = append(files, f)
		}
	}
	var entries []listed
	for _, f := range files {
		entries = append(entries, listed{at: f.ModTime, key: f.Path})
	}
	// The sessions open here that have no file are listed as they are.
	for _, s := range open {
		if !slices.ContainsFunc(files, s.storedIn) {
			entries = append(entries, listed{at: s.touched, key: "\x00" + s.id, info: s.info()})
		}
	}
	slices.SortFunc(entries, listed.before)
	res := acp.ListSessionsResult{Sessions: []acp.SessionInfo{}}
	byPath := make(map[string]StoredFile, len(files))
	for _, f := range files {
		byPath[f.Path] = f
	}
	for _, e := range entries {
		if after != nil && e.before(*after) <= 0 {
			continue
		}
		if e.key[0] != 0 {
			info, ok := a.storedInfo(byPath[e.key], p.Cwd, open)
			if !ok {
				continue
			}
			e.info = info
		}
		if len(res.Sessions) == listPage {
			res.NextCursor = encodeCursor(after)
			break
		}
		res.Sessions = append(res.Sessions, e.info)
		after = &e
	}
	if p.Cwd == "" {
		a.stored.prune(byPath)
	}
	return res, nil
}

// openSession is what session/list shows of a session open here.
type openSession struct {
	id, cwd  string
	dirs     []string
	storedID string    // the id the CLI keeps it under; "" before it has one
	touched  time.Time // when it opened, or its last turn ended
	title    string    // the CLI's title for it; "" before it gives one
	prompt   string    // its first prompt's text, on one line
}

// storedIn reports whether f is the session's file.
func (s openSession) storedIn(f StoredFile) bool {
	return f.ID != "" && s.storedID != "" && strings.HasPrefix(s.storedID, f.ID)
}

func (s openSession) info() acp.SessionInfo {
	return acp.SessionInfo{SessionID: s.id, Cwd: s.cwd, AdditionalDirectories: s.dirs, Title: cmp.Or(s.title, s.prompt), UpdatedAt: timestamp(s.touched)}
}

// openSessions returns the sessions open here that ran in cwd ("" for
// all), as their goroutines last published them.
func (a *Agent) openSessions(cwd string) []openSession {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []openSession
	for _, id := range a.order {
		if s := a.sessions[id]; cwd == "" || s.cwd == cwd {
			out = append(out, s.listed)
		}
	}
	return out
}

// storedInfo returns what session/list shows of the session in f, and
// whether it shows it: a file whose session ran elsewhere than cwd (when
// not ""), or which names no session or directory, is left out. A
// session open here is shown under its own id, with what it knows of
// itself where the file says nothing yet.
func (a *Agent) storedInfo(f StoredFile, cwd string, open []openSession) (acp.SessionInfo, bool) {
	info, ok := a.stored.get(f, func() (StoredInfo, bool) {
		in, err := a.readInfo(f)
		if err != nil {
			a.log.Debug("stored session not listed", "file", f.Path, "error", err)
			return StoredInfo{}, false
		}
		return in, true
	})
	if !ok {
		return acp.SessionInfo{}, false
	}
	si := acp.SessionInfo{SessionID: info.SessionID, Cwd: info.CWD, Title: info.Title, UpdatedAt: timestamp(cmp.Or(info.Updated, f.ModTime))}
	if i := slices.IndexFunc(open, func(s openSession) bool { return s.storedIn(f) }); i >= 0 {
		s := open[i]
		si.SessionID, si.Cwd, si.AdditionalDirectories = s.id, cmp.Or(si.Cwd, s.cwd), s.dirs
		si.Title = cmp.Or(s.title, si.Title, s.prompt)
	}
	if si.SessionID == "" || si.Cwd == "" || cwd != "" && si.Cwd != cwd {
		return acp.SessionInfo{}, false
	}
	return si, true
}

// readInfo reads the list facts of f.
func (a *Agent) readInfo(f StoredFile) (StoredInfo, error) {
	file, err := a.cfg.Store.Open(f.Path)
	if err != nil {
		return StoredInfo{}, err
	}
	defer file.Close()
	r, err := readerAt(file)
	if err != nil {
		return StoredInfo{}, err
	}
	return a.keeper.ReadInfo(f, r)
}

// get returns f's list facts as read by read, reading them only when f
// has changed since the last time.
func (l *storeList) get(f StoredFile, read func() (StoredInfo, bool)) (StoredInfo, bool) {
	l.mu.Lock()
	c, hit := l.infos[f.Path]
	l.mu.Unlock()
	if hit && c.mod.Equal(f.ModTime) && c.size == f.Size {
		return c.info, c.ok
	}
	info, ok := read()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.infos == nil {
		l.infos = map[string]cachedInfo{}
	}
	l.infos[f.Path] = cachedInfo{mod: f.ModTime, size: f.Size, info: info, ok: ok}
	return info, ok
}

// prune forgets the files that are gone: those not in files, a list of
// every file.
func (l *storeList) prune(files map[string]StoredFile) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for path := range l.infos {
		if _, ok := files[path]; !ok {
			delete(l.infos, path)
		}
	}
}

// forget forgets the file at path.
func (l *storeList) forget(path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.infos, path)
}

// A cursor of session/list is where the page before it ended: the time
// and key of its last entry.
func encodeCursor(last *listed) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(last.at.UnixNano(), 10) + " " + last.key))
}

func decodeCursor(c string) (listed, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	ns, key, ok := strings.Cut(string(b), " ")
	n, nerr := strconv.ParseInt(ns, 10, 64)
	if err != nil || !ok || nerr != nil || key == "" {
		return listed{}, acp.Errorf(acp.CodeInvalidParams, "invalid cursor %q", c)
	}
	return listed{at: time.Unix(0, n), key: key}, nil
}

// timestamp is a time as session/list and session_info_update give it:
// RFC 3339 in UTC, to the millisecond; "" for the zero time.
func timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// readerAt returns a ReaderAt of a Store's file.
func readerAt(f fs.File) (io.ReaderAt, error) {
	switch f := f.(type) {
	case io.ReaderAt:
		return f, nil
	case io.ReadSeeker:
		return &seekReaderAt{f}, nil
	}
	return nil, fmt.Errorf("bridge: a store file (%T) is neither an io.ReaderAt nor an io.Seeker", f)
}

// seekReaderAt reads at an offset by seeking, for one caller at a time.
type seekReaderAt struct{ rs io.ReadSeeker }

func (s *seekReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if _, err := s.rs.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	return io.ReadFull(s.rs, p)
}

// errNoStore is the error of session/load and session/delete for a CLI
// that keeps no sessions the Agent can read.
func (a *Agent) errNoStore() error {
	return acp.Errorf(acp.CodeMethodNotFound, "%s keeps no sessions this agent can read", a.info.Name)
}

// canLoad reports whether session/load replays the CLI's sessions.
func (a *Agent) canLoad() bool { return a.keeper != nil && a.cfg.Store != nil }

// load answers session/load: it shows the editor the session's stored
// conversation, then binds the session to it as session/resume does.
func (a *Agent) load(ctx context.Context, ed *editor, o opening) (acp.LoadSessionResult, error) {
	if err := refuseChild(o.id); err != nil {
		return acp.LoadSessionResult{}, err
	}
	if !a.canLoad() {
		return acp.LoadSessionResult{}, a.errNoStore()
	}
	if o.id == "" {
		return acp.LoadSessionResult{}, acp.Errorf(acp.CodeInvalidParams, "sessionId is empty")
	}
	if err := a.checkDirs(o); err != nil {
		return acp.LoadSessionResult{}, err
	}
	stored := o.id
	if s := a.lookup(o.id); s != nil {
		stored = s.storedID() // "" when it has no file yet: nothing to show
	}
	var f *StoredFile
	if stored != "" {
		file, err := a.find(stored, o.cwd)
		if err != nil {
			return acp.LoadSessionResult{}, err
		}
		f = &file
	}
	s, opened, err := a.resumeSession(ctx, ed, o)
	if err != nil {
		return acp.LoadSessionResult{}, err
	}
	if err := s.replay(ctx, ed, f); err != nil {
		if opened {
			a.closeSession(o.id)
		}
		return acp.LoadSessionResult{}, err
	}
	v, err := s.describe()
	s.warm()
	s.lookForTitle()
	return acp.LoadSessionResult{Modes: v.modes, ConfigOptions: v.options}, err
}

// find finds the file of session id, run in cwd ("" when unknown): an
// *acp.Error when there is none, or id is not the CLI's.
func (a *Agent) find(id, cwd string) (StoredFile, error) {
	if !a.keeper.ValidID(id) {
		return StoredFile{}, acp.Errorf(acp.CodeInvalidParams, "%q is not a %s session id", id, a.info.Name)
	}
	f, err := a.keeper.Find(a.cfg.Store, id, cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return StoredFile{}, acp.Errorf(acp.CodeResourceNotFound, "%s has no session %s", a.info.Name, id)
	case err != nil:
		return StoredFile{}, acp.Errorf(acp.CodeInternalError, "finding session %s: %v", id, err)
	}
	return f, nil
}

// delete answers session/delete: it closes the session if it is open
// here, and removes its files from the Store. A session the Store does
// not have is deleted already.
func (a *Agent) delete(ctx context.Context, p acp.DeleteSessionParams) (acp.DeleteSessionResult, error) {
	if err := refuseChild(p.SessionID); err != nil {
		return acp.DeleteSessionResult{}, err
	}
	if !a.canLoad() {
		return acp.DeleteSessionResult{}, a.errNoStore()
	}
	stored, cwd := p.SessionID, ""
	if s := a.lookup(p.SessionID); s != nil {
		stored, cwd = s.storedID(), s.cwd
		a.closeSession(p.SessionID)
		if stored == "" {
			return acp.DeleteSessionResult{}, nil // never stored
		}
	}
	if !a.keeper.ValidID(stored) {
		// Not an id the CLI makes: a session that never existed, whose
		// deletion ACP asks to succeed.
		return acp.DeleteSessionResult{}, nil
	}
	f, err := a.find(stored, cwd)
	var e *acp.Error
	if errors.As(err, &e) && e.Code == acp.CodeResourceNotFound {
		return acp.DeleteSessionResult{}, nil
	}
	if err != nil {
		return acp.DeleteSessionResult{}, err
	}
	a.stored.forget(f.Path)
	if err := a.keeper.Remove(a.cfg.Store, f); err != nil {
		return acp.DeleteSessionResult{}, acp.Errorf(acp.CodeInternalError, "deleting session %s: %v", p.SessionID, err)
	}
	return acp.DeleteSessionResult{}, nil
}

// lookForTitle reads, on a goroutine of its own, the title the CLI
// stored for the session, and tells the session if it has one. A CLI
// writes its title into its file a while into the session, and tells
// its client nothing (Claude Code's ai-title, for one).
func (s *session) lookForTitle() {
	a := s.a
	if !a.canLoad() {
		return
	}
	a.mu.Lock()
	id, cwd := s.listed.storedID, s.cwd
	a.mu.Unlock()
	if id == "" || !a.keeper.ValidID(id) {
		return
	}
	a.wg.Go(func() {
		f, err := a.keeper.Find(a.cfg.Store, id, cwd)
		if err != nil {
			return
		}
		info, ok := a.stored.get(f, func() (StoredInfo, bool) {
			in, err := a.readInfo(f)
			return in, err == nil
		})
		if ok && info.Named && info.Title != "" {
			s.post(retitled{info.Title, cmp.Or(info.Updated, f.ModTime)})
		}
	})
}

// show replays ev's stored conversation to the editor, and answers ev.
func (s *session) show(ev replay) {
	s.ed = ev.ed
	s.holdFrom(ev.hold)
	var err error
	if ev.f != nil {
		r, ok := s.conv.(Replayer)
		if !ok {
			ev.reply <- s.a.errNoStore()
			return
		}
		s.beforeResponse(ev.ed, func() {
			err = r.Replay(&replayHost{host: &host{s: s}, notices: s.ed.acceptsNotices()}, s.a.cfg.Store, *ev.f)
		})
	}
	if err != nil {
		err = acp.Errorf(acp.CodeInternalError, "replaying session %s: %v", s.id, err)
	}
	ev.reply <- err
}

// title tells the editor of a title the CLI stored for the session,
// unless it was told that one already.
func (s *session) title(ev retitled) {
	changed := false
	s.publish(func(l *openSession) {
		changed = l.title != ev.title
		l.title = ev.title
	})
	if changed {
		at := timestamp(ev.at)
		s.notify(s.ed, []acp.Update{acp.SessionInfoUpdate{Title: &ev.title, UpdatedAt: &at}})
	}
}

// publish updates what session/list shows of the session.
func (s *session) publish(update func(*openSession)) {
	s.a.mu.Lock()
	defer s.a.mu.Unlock()
	update(&s.listed)
}

// storedID returns the id under which the CLI keeps conv; "" when it
// keeps none, or has not named one yet.
func storedID(conv Conversation) string {
	if r, ok := conv.(Replayer); ok {
		return r.StoredID()
	}
	return ""
}

// promptTitle is a prompt's text as a session's title until it has one.
func promptTitle(prompt []acp.ContentBlock) string {
	var texts []string
	for _, b := range prompt {
		if t, ok := b.(acp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	return storefile.OneLine(strings.Join(texts, "\n"))
}

var (
	_ Keeper   = claudeCLI{}
	_ Keeper   = codexCLI{}
	_ Keeper   = geminiCLI{}
	_ Replayer = (*claudeConversation)(nil)
	_ Replayer = (*codexConversation)(nil)
	_ Replayer = (*geminiConversation)(nil)
)
