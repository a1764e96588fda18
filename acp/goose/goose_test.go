package goose

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// checkGoldenLine compares line with testdata/golden/name.jsonl, which
// holds the line followed by a newline.
func checkGoldenLine(t *testing.T, name string, line []byte) {
	t.Helper()
	if bytes.ContainsAny(line, "\r\n") || !json.Valid(line) {
		t.Errorf("%s: not one line of JSON: %s", name, line)
	}
	path := filepath.Join("testdata", "golden", name+".jsonl")
	got := append(bytes.Clone(line), '\n')
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func ptrOf[T any](v T) *T { return &v }

// notificationLine is the line SessionUpdate.Notify sends for n.
func notificationLine(n SessionNotification) ([]byte, error) {
	return acp.MarshalNotification(SessionUpdate.Name, n)
}

func paramsOfLine(t *testing.T, line []byte) json.RawMessage {
	t.Helper()
	var env struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(line, &env); err != nil {
		t.Fatal(err)
	}
	return env.Params
}

func wantInvalidField(t *testing.T, err error, field string) {
	t.Helper()
	if !errors.Is(err, acp.ErrInvalidParams) {
		t.Fatalf("err = %v, want an invalid params error", err)
	}
	if got, _ := acp.InvalidField(err); got != field {
		t.Errorf("field %q, want %q; error: %v", got, field, err)
	}
}

func sampleUsage() UsageUpdate {
	return UsageUpdate{
		Used: 1200, ContextLimit: 0, Model: "claude-opus-4-5",
		AccumulatedInputTokens:       ptrOf(uint64(1000)),
		AccumulatedOutputTokens:      ptrOf(uint64(200)),
		AccumulatedCachedInputTokens: ptrOf(uint64(0)),
		PricingIdentity:              &PricingIdentity{Authority: "api.anthropic.com", Model: "claude-opus-4-5"},
	}
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		build func() ([]byte, error)
	}{
		{"goose_usage_update", func() ([]byte, error) {
			return notificationLine(SessionNotification{SessionID: "sess-1", Update: sampleUsage()})
		}},
		{"goose_usage_update_minimal", func() ([]byte, error) {
			return notificationLine(SessionNotification{SessionID: "sess-1", Update: UsageUpdate{Used: 0, Model: "m"}})
		}},
		{"goose_steer_request", func() ([]byte, error) {
			return acp.MarshalRequest(acp.IntID(9), SessionSteer.Name, SteerParams{
				SessionID: "sess-1", Prompt: acp.ContentBlocks{acp.TextContent{Text: "also handle EOF"}}, ExpectedRunID: "run-7",
			})
		}},
		{"goose_meta_no_active_run", func() ([]byte, error) {
			meta, err := Meta{ActiveRunID: ptrOf("")}.Marshal()
			if err != nil {
				return nil, err
			}
			return acp.MarshalNotification(acp.SessionUpdate.Name, acp.SessionNotification{SessionID: "sess-1", Update: acp.SessionInfoUpdate{Meta: meta}})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line, err := tc.build()
			if err != nil {
				t.Fatal(err)
			}
			checkGoldenLine(t, tc.name, line)
		})
	}
}

func TestUsageRoundTrip(t *testing.T) {
	for name, u := range map[string]UsageUpdate{
		"full":    sampleUsage(),
		"minimal": {Used: 5, Model: "m"},
		"all counts": {Used: 1, ContextLimit: 2, Model: "m",
			AccumulatedInputTokens: ptrOf(uint64(1)), AccumulatedOutputTokens: ptrOf(uint64(2)),
			AccumulatedCachedInputTokens: ptrOf(uint64(3)), AccumulatedCacheWriteTokens: ptrOf(uint64(4)),
			AccumulatedTotalTokens: ptrOf(uint64(18446744073709551615)),
			PricingIdentity:        &PricingIdentity{Authority: "a", Model: "m", CacheClass: "c"}},
	} {
		t.Run(name, func(t *testing.T) {
			line, err := notificationLine(SessionNotification{SessionID: "s", Update: u})
			if err != nil {
				t.Fatal(err)
			}
			got, err := acp.DecodeParams[SessionNotification](paramsOfLine(t, line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(SessionNotification{SessionID: "s", Update: u}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUsageOmitsAbsentCounts(t *testing.T) {
	line, err := notificationLine(SessionNotification{SessionID: "s", Update: UsageUpdate{Used: 1, Model: "m", AccumulatedOutputTokens: ptrOf(uint64(0))}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(line), "null") {
		t.Errorf("absent counts sent as null: %s", line)
	}
	for _, absent := range []string{"accumulatedInputTokens", "accumulatedCachedInputTokens", "accumulatedCacheWriteTokens", "accumulatedTotalTokens", "pricingIdentity"} {
		if strings.Contains(string(line), absent) {
			t.Errorf("%s present in %s", absent, line)
		}
	}
	if !strings.Contains(string(line), `"accumulatedOutputTokens":0`) {
		t.Errorf("explicit zero dropped: %s", line)
	}
}

func TestMarshalNilUpdate(t *testing.T) {
	if _, err := notificationLine(SessionNotification{SessionID: "s"}); err == nil {
		t.Error("a notification without an update marshalled")
	}
}

func TestDecodeSessionNotification(t *testing.T) {
	raw := `{"sessionUpdate":"status","state":"thinking"}`
	got, err := acp.DecodeParams[SessionNotification]([]byte(`{"sessionId":"s","update":` + raw + `}`))
	if err != nil {
		t.Fatal(err)
	}
	want := SessionNotification{SessionID: "s", Update: UnknownUpdate{Kind: "status", Raw: json.RawMessage(raw)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	for _, tc := range []struct{ params, field string }{
		{`{"update":{"sessionUpdate":"usage_update","used":1}}`, "sessionId"},
		{`null`, "sessionId"},
		{``, "sessionId"},
		{`{"sessionId":"s"}`, "update"},
		{`{"sessionId":"s","update":{}}`, "update.sessionUpdate"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update"}}`, "update.used"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"accumulatedInputTokens":-1}}`, "update.accumulatedInputTokens"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"pricingIdentity":{"authority":"a"}}}`, "update.pricingIdentity.model"},
		{"{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"later\",\"x\":\"\xff\"}}", "params"},
	} {
		_, err := acp.DecodeParams[SessionNotification]([]byte(tc.params))
		wantInvalidField(t, err, tc.field)
	}
}

func TestSteerParams(t *testing.T) {
	p := SteerParams{SessionID: "s", Prompt: acp.ContentBlocks{acp.TextContent{Text: "x"}}, ExpectedRunID: "r", Meta: json.RawMessage(`{"a":1}`)}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := acp.DecodeParams[SteerParams](raw)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got, err := acp.DecodeParams[SteerParams]([]byte(`{"sessionId":"s","expectedRunId":"r"}`)); err != nil || got.Prompt != nil {
		t.Errorf("absent prompt: %#v, %v; want nil", got.Prompt, err)
	}
	for _, tc := range []struct{ params, field string }{
		{`{"expectedRunId":"r"}`, "sessionId"},
		{`{"sessionId":"s","prompt":[]}`, "expectedRunId"},
		{`{"sessionId":"s","prompt":[],"expectedRunId":7}`, "expectedRunId"},
		{`{"sessionId":"s","prompt":[{"type":"text"}],"expectedRunId":"r"}`, "prompt[0].text"},
	} {
		_, err := acp.DecodeParams[SteerParams]([]byte(tc.params))
		wantInvalidField(t, err, tc.field)
	}
}

func TestMeta(t *testing.T) {
	cases := []struct {
		name string
		meta Meta
		wire string
	}{
		{"active run", Meta{ActiveRunID: ptrOf("run-1")}, `{"goose":{"activeRunId":"run-1"}}`},
		{"no active run", Meta{ActiveRunID: ptrOf("")}, `{"goose":{"activeRunId":null}}`},
		{"queued steer", Meta{QueuedSteer: json.RawMessage(`"steer-2"`)}, `{"goose":{"queuedSteer":"steer-2"}}`},
		{"empty", Meta{}, `{"goose":{}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.meta.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wire, string(got)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
			back, ok := ParseMeta(got)
			if !ok {
				t.Fatal("ParseMeta: not ok")
			}
			if diff := cmp.Diff(tc.meta, back); diff != "" {
				t.Errorf("ParseMeta (-want +got):\n%s", diff)
			}
		})
	}
	for _, meta := range []string{``, `null`, `{}`, `{"other":1}`, `{"goose":1}`, `[]`, `{"goose":{"activeRunId":7}}`,
		"{\"goose\":{\"activeRunId\":\"r\xff\"}}"} {
		if _, ok := ParseMeta(json.RawMessage(meta)); ok {
			t.Errorf("ParseMeta(%q) ok", meta)
		}
	}
	// Of a repeated member the last wins.
	if m, ok := ParseMeta(json.RawMessage(`{"goose":{"activeRunId":"a"},"goose":{"activeRunId":"b"}}`)); !ok || *m.ActiveRunID != "b" {
		t.Errorf("duplicate goose member: %+v, %v", m, ok)
	}
}

func TestAcceptsCustomNotifications(t *testing.T) {
	cases := []struct {
		meta string
		want bool
	}{
		{``, false},
		{`{"goose":{"customNotifications":true}}`, true},
		{`{"goose":{"customNotifications":false}}`, false},
		{`{"goose":{"customNotifications":"yes"}}`, false},
		{`{"goose":true}`, false},
		{`{"goose":{"customNotifications":false},"goose":{"customNotifications":true}}`, true},
		{`{"goose.customNotifications":true}`, false},
		{strings.Repeat("[", 10<<20), false},
		{strings.Repeat(`{"goose":`, 1<<20) + "true" + strings.Repeat("}", 1<<20), false},
	}
	for _, tc := range cases {
		c := acp.ClientCapabilities{Meta: json.RawMessage(tc.meta)}
		if got := AcceptsCustomNotifications(c); got != tc.want {
			t.Errorf("AcceptsCustomNotifications(%.60s) = %v, want %v", tc.meta, got, tc.want)
		}
	}
}
