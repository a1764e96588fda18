package codex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// The typed methods of a Session: one per request of the protocol it
// models.

// Initialize sends the initialize request, which must come first, and
// then the initialized notification, and returns what the server says of
// itself. The server refuses a second initialize.
func (s *Session) Initialize(ctx context.Context, client ClientInfo, opts InitializeOptions) (ServerInfo, error) {
	if client.Name == "" || client.Version == "" {
		return ServerInfo{}, fmt.Errorf("%w: the client's name and version are required", ErrInvalidInput)
	}
	p := wireInitializeParams{ClientInfo: wireClientInfo{Name: client.Name, Version: client.Version}}
	if client.Title != "" {
		p.ClientInfo.Title = &client.Title
	}
	if opts.ExperimentalAPI || len(opts.OptOutNotifications) > 0 {
		p.Capabilities = &wireInitializeCapabilities{ExperimentalAPI: opts.ExperimentalAPI, OptOutNotificationMethods: opts.OptOutNotifications}
	}
	var w wireInitializeResponse
	if err := s.requestInto(ctx, "initialize", p, &w, ""); err != nil {
		return ServerInfo{}, err
	}
	if err := s.Notify("initialized", nil); err != nil {
		return ServerInfo{}, err
	}
	return ServerInfo{UserAgent: w.UserAgent, Version: userAgentVersion(w.UserAgent), CodexHome: w.CodexHome,
		PlatformFamily: w.PlatformFamily, PlatformOS: w.PlatformOS}, nil
}

// userAgentVersion reads the CLI's release from the server's user agent,
// "<client>/<version> (<platform>) …"; "" when it names none.
func userAgentVersion(ua string) string {
	first, _, _ := bytes.Cut([]byte(ua), []byte(" "))
	_, v, ok := bytes.Cut(first, []byte("/"))
	if !ok || len(v) == 0 || v[0] < '0' || v[0] > '9' {
		return ""
	}
	return string(v)
}

// threadOptions returns the wire form of opts.
func threadOptions(opts ThreadOptions) (wireThreadOptions, error) {
	w := wireThreadOptions{
		CWD: opts.CWD, Model: opts.Model, ModelProvider: opts.ModelProvider, Sandbox: string(opts.Sandbox),
		BaseInstructions: opts.BaseInstructions, DeveloperInstructions: opts.DeveloperInstructions,
	}
	if opts.ApprovalPolicy != "" {
		w.ApprovalPolicy = approvalPolicyJSON(opts.ApprovalPolicy)
	}
	if opts.Config != nil {
		if c := bytes.TrimSpace(opts.Config); len(c) == 0 || c[0] != '{' || !json.Valid(c) {
			return w, fmt.Errorf("%w: the thread's config is not a JSON object", ErrInvalidInput)
		}
		w.Config = opts.Config
	}
	return w, nil
}

// approvalPolicyJSON is a policy as JSON: a string, or the object of a
// granular policy given as its JSON text.
func approvalPolicyJSON(p ApprovalPolicy) json.RawMessage {
	if raw := bytes.TrimSpace([]byte(p)); len(raw) > 0 && raw[0] == '{' && json.Valid(raw) {
		return raw
	}
	b, _ := json.Marshal(string(p)) // a string always marshals
	return b
}

// StartThread starts a thread (thread/start). The server then sends a
// [ThreadStarted].
func (s *Session) StartThread(ctx context.Context, opts ThreadOptions) (ThreadResult, error) {
	return s.openThread(ctx, "thread/start", opts, func(o wireThreadOptions) any {
		return wireThreadStartParams{o, opts.Ephemeral}
	})
}

// ResumeThread loads a thread of the CLI's store into this process, to go
// on with it (thread/resume); opts override its settings. A thread the CLI
// does not have gives an [*RPCError] matching [ErrResumeNotFound]. Token
// usage restarts from the thread's stored totals.
func (s *Session) ResumeThread(ctx context.Context, threadID string, opts ThreadOptions) (ThreadResult, error) {
	if threadID == "" {
		return ThreadResult{}, fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	return s.openThread(ctx, "thread/resume", opts, func(o wireThreadOptions) any {
		return wireThreadResumeParams{ThreadID: threadID, wireThreadOptions: o, ExcludeTurns: opts.WithoutTurns}
	})
}

// ForkThread starts a new thread holding a copy of the thread's turns
// (thread/fork); its Thread.ForkedFromID is threadID.
func (s *Session) ForkThread(ctx context.Context, threadID string, opts ThreadOptions) (ThreadResult, error) {
	if threadID == "" {
		return ThreadResult{}, fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	return s.openThread(ctx, "thread/fork", opts, func(o wireThreadOptions) any {
		return wireThreadForkParams{ThreadID: threadID, wireThreadOptions: o, Ephemeral: opts.Ephemeral, ExcludeTurns: opts.WithoutTurns}
	})
}

// openThread sends method, a thread method whose params params makes of
// opts' wire form, and reads its answer.
func (s *Session) openThread(ctx context.Context, method string, opts ThreadOptions, params func(wireThreadOptions) any) (ThreadResult, error) {
	o, err := threadOptions(opts)
	if err != nil {
		return ThreadResult{}, err
	}
	var w wireThreadResponse
	if err := s.requestInto(ctx, method, params(o), &w, ""); err != nil {
		return ThreadResult{}, err
	}
	return w.result(), nil
}

// ListThreads returns a page of the CLI's threads (thread/list), newest
// first, without their turns.
func (s *Session) ListThreads(ctx context.Context, opts ThreadListOptions) (ThreadList, error) {
	var w wireThreadListResponse
	p := wireThreadListParams{Cursor: opts.Cursor, Limit: max(opts.Limit, 0), Archived: opts.Archived, SearchTerm: opts.Search}
	if err := s.requestInto(ctx, "thread/list", p, &w, ""); err != nil {
		return ThreadList{}, err
	}
	list := ThreadList{NextCursor: w.NextCursor}
	for i := range w.Data {
		list.Threads = append(list.Threads, w.Data[i].thread())
	}
	return list, nil
}

// ReadThread returns a thread (thread/read), with its turns when
// withTurns is set.
func (s *Session) ReadThread(ctx context.Context, threadID string, withTurns bool) (Thread, error) {
	if threadID == "" {
		return Thread{}, fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	var w wireThreadAnswer
	if err := s.requestInto(ctx, "thread/read", wireThreadReadParams{threadID, withTurns}, &w, ""); err != nil {
		return Thread{}, err
	}
	return w.Thread.thread(), nil
}

// ListTurns returns a page of a thread's turns with their items
// (thread/turns/list), newest first; cursor is a page's NextCursor, ""
// for the first page.
func (s *Session) ListTurns(ctx context.Context, threadID, cursor string) (TurnList, error) {
	if threadID == "" {
		return TurnList{}, fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	var w wireThreadTurnsListResponse
	if err := s.requestInto(ctx, "thread/turns/list", wireThreadTurnsListParams{ThreadID: threadID, Cursor: cursor}, &w, ""); err != nil {
		return TurnList{}, err
	}
	list := TurnList{NextCursor: w.NextCursor}
	for i := range w.Data {
		list.Turns = append(list.Turns, w.Data[i].turn(threadID))
	}
	return list, nil
}

// SetThreadName names a thread (thread/name/set); the server then sends a
// [ThreadNameChanged].
func (s *Session) SetThreadName(ctx context.Context, threadID, name string) error {
	if threadID == "" {
		return fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	_, err := s.request(ctx, "thread/name/set", wireThreadSetNameParams{threadID, name}, "")
	return err
}

// ArchiveThread moves a thread to the CLI's archive (thread/archive),
// out of ListThreads' default list.
func (s *Session) ArchiveThread(ctx context.Context, threadID string) error {
	if threadID == "" {
		return fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	_, err := s.request(ctx, "thread/archive", wireThreadIDParams{threadID}, "")
	return err
}

// UnarchiveThread brings an archived thread back (thread/unarchive).
func (s *Session) UnarchiveThread(ctx context.Context, threadID string) (Thread, error) {
	if threadID == "" {
		return Thread{}, fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	var w wireThreadAnswer
	if err := s.requestInto(ctx, "thread/unarchive", wireThreadIDParams{threadID}, &w, ""); err != nil {
		return Thread{}, err
	}
	return w.Thread.thread(), nil
}

// StartTurn starts a turn of the thread with input (turn/start) and
// returns it as the server accepted it, in progress. The turn's events
// follow through the reading loop, to its [TurnEnd]; meanwhile the turn is
// the thread's [Session.ActiveTurn].
func (s *Session) StartTurn(ctx context.Context, threadID string, input []Input, opts TurnOptions) (ThreadTurn, error) {
	if threadID == "" {
		return ThreadTurn{}, fmt.Errorf("%w: no thread id", ErrInvalidInput)
	}
	if len(input) == 0 {
		return ThreadTurn{}, fmt.Errorf("%w: a turn without input", ErrInvalidInput)
	}
	p := wireTurnStartParams{ThreadID: threadID, CWD: opts.CWD, Model: opts.Model, Effort: opts.Effort, Summary: opts.Summary}
	for i, in := range input {
		w, err := in.wire()
		if err != nil {
			return ThreadTurn{}, fmt.Errorf("%w: input %d: %v", ErrInvalidInput, i, err)
		}
		p.Input = append(p.Input, w)
	}
	if opts.ApprovalPolicy != "" {
		p.ApprovalPolicy = approvalPolicyJSON(opts.ApprovalPolicy)
	}
	if opts.Sandbox.Type != "" {
		sp := wireSandboxPolicy{Type: opts.Sandbox.Type, WritableRoots: opts.Sandbox.WritableRoots}
		if opts.Sandbox.NetworkAccess {
			sp.NetworkAccess = true
		}
		p.SandboxPolicy = &sp
	}
	if opts.OutputSchema != nil {
		if c := bytes.TrimSpace(opts.OutputSchema); len(c) == 0 || c[0] != '{' || !json.Valid(c) {
			return ThreadTurn{}, fmt.Errorf("%w: the output schema is not a JSON object", ErrInvalidInput)
		}
		p.OutputSchema = opts.OutputSchema
	}
	var w wireTurnAnswer
	if err := s.requestInto(ctx, "turn/start", p, &w, threadID); err != nil {
		return ThreadTurn{}, err
	}
	return w.Turn.turn(threadID), nil
}

// wire returns the input's wire form.
func (in Input) wire() (wireUserInput, error) {
	w := wireUserInput{Type: in.kind}
	switch in.kind {
	case "text":
		if in.text == "" {
			return w, errors.New("empty text")
		}
		w.Text, w.TextElements = &in.text, json.RawMessage(`[]`)
	case "image":
		if in.text == "" {
			return w, errors.New("an image without a URL")
		}
		w.URL = in.text
	case "localImage":
		if in.path == "" {
			return w, errors.New("an image without a path")
		}
		w.Path = in.path
	case "mention", "skill":
		if in.text == "" || in.path == "" {
			return w, errors.New("a " + in.kind + " without a name or a path")
		}
		w.Name, w.Path = in.text, in.path
	default:
		return w, errors.New("the zero Input")
	}
	return w, nil
}

// Interrupt stops the thread's turn under way (turn/interrupt). The
// server answers at once, withdraws the turn's pending requests
// ([RequestResolved]) and ends the turn with a [TurnEnd] whose status is
// [TurnStatusInterrupted]; the thread takes the next turn. With no turn
// under way it returns [ErrNoActiveTurn].
func (s *Session) Interrupt(ctx context.Context, threadID string) error {
	turnID, ok := s.ActiveTurn(threadID)
	if !ok {
		return fmt.Errorf("%w: thread %q", ErrNoActiveTurn, threadID)
	}
	_, err := s.request(ctx, "turn/interrupt", wireTurnInterruptParams{threadID, turnID}, "")
	return err
}

// ListModels returns a page of the models the CLI offers (model/list),
// each with the reasoning efforts it supports.
func (s *Session) ListModels(ctx context.Context, opts ModelListOptions) (ModelList, error) {
	var w wireModelListResponse
	p := wireModelListParams{Cursor: opts.Cursor, Limit: max(opts.Limit, 0), IncludeHidden: opts.IncludeHidden}
	if err := s.requestInto(ctx, "model/list", p, &w, ""); err != nil {
		return ModelList{}, err
	}
	list := ModelList{NextCursor: w.NextCursor}
	for i := range w.Data {
		list.Models = append(list.Models, w.Data[i].model())
	}
	return list, nil
}
