package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGooseUsageRoundTrip(t *testing.T) {
	for name, u := range map[string]GooseUsageUpdate{
		"full":    sampleUsage(),
		"minimal": {Used: 5, Model: "m"},
		"all counts": {Used: 1, ContextLimit: 2, Model: "m",
			AccumulatedInputTokens: ptrOf(uint64(1)), AccumulatedOutputTokens: ptrOf(uint64(2)),
			AccumulatedCachedInputTokens: ptrOf(uint64(3)), AccumulatedCacheWriteTokens: ptrOf(uint64(4)),
			AccumulatedTotalTokens: ptrOf(uint64(18446744073709551615)),
			PricingIdentity:        &PricingIdentity{Authority: "a", Model: "m", CacheClass: "c"}},
	} {
		t.Run(name, func(t *testing.T) {
			line, err := MarshalGooseSessionUpdate("s", u)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeGooseSessionNotification(paramsOfLine(t, line))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(GooseSessionNotification{SessionID: "s", Update: u}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestGooseUsageOmitsAbsentCounts(t *testing.T) {
	line, err := MarshalGooseSessionUpdate("s", GooseUsageUpdate{Used: 1, Model: "m", AccumulatedOutputTokens: ptrOf(uint64(0))})
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

func TestDecodeGooseSessionNotification(t *testing.T) {
	raw := `{"sessionUpdate":"status","state":"thinking"}`
	got, err := DecodeGooseSessionNotification([]byte(`{"sessionId":"s","update":` + raw + `}`))
	if err != nil {
		t.Fatal(err)
	}
	want := GooseSessionNotification{SessionID: "s", Update: UnknownGooseUpdate{Kind: "status", Raw: json.RawMessage(raw)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	for _, tc := range []struct{ params, field string }{
		{`{"update":{"sessionUpdate":"usage_update","used":1}}`, "sessionId"},
		{`{"sessionId":"s"}`, "update"},
		{`{"sessionId":"s","update":{}}`, "update.sessionUpdate"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update"}}`, "update.used"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"accumulatedInputTokens":-1}}`, "update.accumulatedInputTokens"},
		{`{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":1,"pricingIdentity":{"authority":"a"}}}`, "update.pricingIdentity.model"},
	} {
		_, err := DecodeGooseSessionNotification([]byte(tc.params))
		wantInvalidField(t, err, tc.field)
	}
}

func TestGooseMeta(t *testing.T) {
	cases := []struct {
		name string
		meta GooseMeta
		wire string
	}{
		{"active run", GooseMeta{ActiveRunID: ptrOf("run-1")}, `{"goose":{"activeRunId":"run-1"}}`},
		{"no active run", GooseMeta{ActiveRunID: ptrOf("")}, `{"goose":{"activeRunId":null}}`},
		{"queued steer", GooseMeta{QueuedSteer: json.RawMessage(`"steer-2"`)}, `{"goose":{"queuedSteer":"steer-2"}}`},
		{"empty", GooseMeta{}, `{"goose":{}}`},
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
			back, ok := ParseGooseMeta(got)
			if !ok {
				t.Fatal("ParseGooseMeta: not ok")
			}
			if diff := cmp.Diff(tc.meta, back); diff != "" {
				t.Errorf("ParseGooseMeta (-want +got):\n%s", diff)
			}
		})
	}
	for _, meta := range []string{``, `null`, `{}`, `{"other":1}`, `{"goose":1}`, `[]`, `{"goose":{"activeRunId":7}}`} {
		if _, ok := ParseGooseMeta(json.RawMessage(meta)); ok {
			t.Errorf("ParseGooseMeta(%q) ok", meta)
		}
	}
}

func TestGooseRefusesInvalidUTF8(t *testing.T) {
	if m, ok := ParseGooseMeta([]byte("{\"goose\":{\"activeRunId\":\"r\xff\"}}")); ok {
		t.Errorf("ParseGooseMeta accepted invalid UTF-8: %#v", m)
	}
	_, err := DecodeGooseSessionNotification([]byte("{\"sessionId\":\"s\",\"update\":{\"sessionUpdate\":\"later\",\"x\":\"\xff\"}}"))
	wantInvalidField(t, err, "params")
}
