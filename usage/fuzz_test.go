package usage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/claude"
)

// fuzzReader decodes fuzz bytes into values; once the bytes run out it
// yields zeros.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// value yields small, medium, near-overflow and arbitrary numbers.
func (r *fuzzReader) value() uint64 {
	switch r.byte() % 4 {
	case 0:
		return uint64(r.byte())
	case 1:
		return uint64(r.byte())<<8 | uint64(r.byte())
	case 2:
		return math.MaxUint64 - uint64(r.byte())
	}
	var buf [8]byte
	for i := range buf {
		buf[i] = r.byte()
	}
	return binary.LittleEndian.Uint64(buf[:])
}

var fuzzIdentities = []Identity{
	{Authority: AuthorityAnthropic, Model: "claude-sonnet-4-5"},
	{Authority: AuthorityAnthropic, Model: "claude-haiku-4-5"},
	{Authority: AuthorityOpenAI, Model: "gpt-4.1", CacheClass: "x"},
}

// decodeReports turns fuzz bytes into a sequence of reports.
func decodeReports(data []byte) []Report {
	r := &fuzzReader{b: data}
	var out []Report
	for len(r.b) > 0 && len(out) < 64 {
		flags := uint16(r.byte()) | uint16(r.byte())<<8
		var rep Report
		fields := []*Count{&rep.Input, &rep.Output, &rep.CacheRead, &rep.CacheWrite, &rep.Total, &rep.Cost, &rep.CacheWrite5m, &rep.CacheWrite1h}
		for i, f := range fields {
			if flags&(1<<i) != 0 {
				*f = CountOf(r.value())
			}
		}
		if flags&(1<<8) != 0 {
			rep.Identity = fuzzIdentities[int(r.byte())%len(fuzzIdentities)]
		}
		out = append(out, rep)
	}
	return out
}

// refCounter is the reference model of one counter: exact big sums.
type refCounter struct {
	all bool // every report so far carried the figure
	sum big.Int
}

func FuzzAccumulator(f *testing.F) {
	f.Add([]byte{0x3f, 0x00, 0, 10, 0, 5, 0, 1, 0, 2, 0, 20, 0, 99})
	f.Add([]byte{0x03, 0x00, 2, 0, 0, 1, 0x03, 0x00, 0, 20, 0, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		reports := decodeReports(data)
		var acc Accumulator
		refs := make([]refCounter, 6)
		for i := range refs {
			refs[i].all = true
		}
		var id Identity
		idOK := true
		prev := acc.Snapshot()
		for n, rep := range reports {
			acc.Add(rep)
			got := acc.Snapshot()

			// Reference: drop cache figures that exceed the input.
			read, write := rep.CacheRead, rep.CacheWrite
			if in, ok := rep.Input.Get(); ok {
				var cached big.Int
				if v, ok := read.Get(); ok {
					cached.Add(&cached, new(big.Int).SetUint64(v))
				}
				if v, ok := write.Get(); ok {
					cached.Add(&cached, new(big.Int).SetUint64(v))
				}
				if cached.Cmp(new(big.Int).SetUint64(in)) > 0 {
					read, write = Count{}, Count{}
				}
			}
			figs := []Count{rep.Input, rep.Output, read, write, rep.Total, rep.Cost}
			cur := []Counter{got.Input, got.Output, got.CacheRead, got.CacheWrite, got.Total, got.Cost}
			old := []Counter{prev.Input, prev.Output, prev.CacheRead, prev.CacheWrite, prev.Total, prev.Cost}
			for i, fig := range figs {
				ref := &refs[i]
				if v, ok := fig.Get(); ok {
					ref.sum.Add(&ref.sum, new(big.Int).SetUint64(v))
				} else {
					ref.all = false
				}
				wantExact := ref.all && ref.sum.IsUint64()
				v, exact := cur[i].Value()
				if exact != wantExact || cur[i].State() == StateUnseen {
					t.Fatalf("report %d counter %d: state %v, want exact=%v (sum %v)", n, i, cur[i].State(), wantExact, &ref.sum)
				}
				if exact && v != ref.sum.Uint64() {
					t.Fatalf("report %d counter %d: value %d, want %v", n, i, v, &ref.sum)
				}
				if pv, ok := old[i].Value(); ok && exact && v < pv {
					t.Fatalf("report %d counter %d went down: %d -> %d", n, i, pv, v)
				}
				if old[i].State() == StateUnknown && cur[i].State() != StateUnknown {
					t.Fatalf("report %d counter %d left Unknown", n, i)
				}
			}
			if n == 0 {
				id = rep.Identity
			}
			idOK = idOK && rep.Identity.Proven() && rep.Identity == id
			if want := map[bool]Identity{true: id}[idOK]; got.Identity != want {
				t.Fatalf("report %d: identity %+v, want %+v", n, got.Identity, want)
			}
			in, _ := got.Input.Value()
			out, _ := got.Output.Value()
			want := new(big.Int).Add(new(big.Int).SetUint64(in), new(big.Int).SetUint64(out))
			if !want.IsUint64() {
				want.SetUint64(math.MaxUint64)
			}
			if got.UsedSaturating() != want.Uint64() {
				t.Fatalf("report %d: UsedSaturating() = %d, want %v", n, got.UsedSaturating(), want)
			}
			prev = got
		}
	})
}

// jsonObject decodes data as encoding/json would, or returns false.
func jsonObject(data []byte) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

// jsonTokens is the reference reading of a token count: encoding/json's
// decoding into a uint64, with missing and null as absent.
func jsonTokens(m map[string]json.RawMessage, name string) Count {
	raw, ok := m[name]
	if !ok || string(raw) == "null" {
		return Count{}
	}
	var v uint64
	if err := json.Unmarshal(raw, &v); err != nil {
		return Count{}
	}
	return CountOf(v)
}

// jsonSub returns the member name decoded as an object, or nil.
func jsonSub(m map[string]json.RawMessage, name string) map[string]json.RawMessage {
	sub, _ := jsonObject(m[name])
	return sub
}

// checkValidity fails when the converter and encoding/json disagree on
// whether data is a JSON object. encoding/json lets invalid UTF-8 through;
// the converters, like all of acpkit, refuse it.
func checkValidity(t *testing.T, data []byte, err error) (map[string]json.RawMessage, bool) {
	t.Helper()
	m, ok := jsonObject(data)
	ok = ok && utf8.Valid(data)
	if ok != (err == nil) {
		t.Fatalf("converter error %v, encoding/json object and valid UTF-8 = %v for %q", err, ok, data)
	}
	return m, ok
}

func FuzzFromAnthropic(f *testing.F) {
	f.Add([]byte(`{"input_tokens":3,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":11,"cache_creation":{"ephemeral_5m_input_tokens":2,"ephemeral_1h_input_tokens":3}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := FromAnthropic(data)
		m, ok := checkValidity(t, data, err)
		if !ok {
			return
		}
		fresh, write, read := jsonTokens(m, "input_tokens"), jsonTokens(m, "cache_creation_input_tokens"), jsonTokens(m, "cache_read_input_tokens")
		split := jsonSub(m, "cache_creation")
		want := Report{
			Input: fresh.add(write).add(read), Output: jsonTokens(m, "output_tokens"),
			CacheRead: read, CacheWrite: write,
			CacheWrite5m: jsonTokens(split, "ephemeral_5m_input_tokens"), CacheWrite1h: jsonTokens(split, "ephemeral_1h_input_tokens"),
		}
		if r != want {
			t.Fatalf("FromAnthropic(%q) = %+v, want %+v", data, r, want)
		}
	})
}

func fuzzOpenAI(f *testing.F, conv func([]byte) (Report, error), in, out, details string) {
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := conv(data)
		m, ok := checkValidity(t, data, err)
		if !ok {
			return
		}
		d := jsonSub(m, details)
		want := Report{
			Input: jsonTokens(m, in), Output: jsonTokens(m, out), Total: jsonTokens(m, "total_tokens"),
			CacheRead: jsonTokens(d, "cached_tokens"), CacheWrite: jsonTokens(d, "cache_write_tokens"),
		}
		if r != want {
			t.Fatalf("converting %q = %+v, want %+v", data, r, want)
		}
	})
}

func FuzzFromOpenAIChat(f *testing.F) {
	f.Add([]byte(`{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"prompt_tokens_details":{"cached_tokens":64,"cache_write_tokens":1}}`))
	fuzzOpenAI(f, FromOpenAIChat, "prompt_tokens", "completion_tokens", "prompt_tokens_details")
}

func FuzzFromOpenAIResponses(f *testing.F) {
	f.Add([]byte(`{"input_tokens":328,"input_tokens_details":{"cached_tokens":0},"output_tokens":52,"total_tokens":380}`))
	fuzzOpenAI(f, FromOpenAIResponses, "input_tokens", "output_tokens", "input_tokens_details")
}

// checkMoney compares an amount read in picodollars with the float reading
// of the same literal.
func checkMoney(t *testing.T, raw json.RawMessage, got Count) {
	t.Helper()
	s := string(raw)
	f, err := strconv.ParseFloat(s, 64)
	isNum := err == nil && len(s) > 0 && (s[0] == '-' || s[0] >= '0' && s[0] <= '9')
	if v, ok := got.Get(); ok {
		if !isNum || f < 0 || math.Abs(USD(v)-f) > 1e-12+1e-9*f {
			t.Fatalf("amount %s read as %d picodollars", s, v)
		}
		return
	}
	if isNum && !strings.HasPrefix(s, "-") && !strings.ContainsAny(s, "eE") && len(s) <= 64 && f < 1e6 {
		t.Fatalf("amount %s read as absent", s)
	}
}

// FuzzFromClaudeResult reads the members of a result line (data, a JSON
// object) as claude.ParseLine and FromClaudeResult do, and checks every
// model against encoding/json's reading of the same members.
func FuzzFromClaudeResult(f *testing.F) {
	f.Add([]byte(`{"total_cost_usd":0.0512345,"modelUsage":{"claude-sonnet-4-5":{"inputTokens":8,"outputTokens":300,"cacheReadInputTokens":12000,"cacheCreationInputTokens":3000,"costUSD":0.0501,"contextWindow":200000,"maxOutputTokens":64000}},` +
		`"usage":{"input_tokens":8},"model_usage_since_last_result":{"claude-sonnet-4-5":{"inputTokens":8,"outputTokens":30,"cacheCreationEphemeral5mInputTokens":1,"cacheCreationEphemeral1hInputTokens":2,"costUSD":0.01}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok := jsonObject(data)
		if !ok || !utf8.Valid(data) || len(m) == 0 {
			return
		}
		line := append([]byte(`{"type":"result",`), bytes.TrimSpace(data)[1:]...)
		events, _, err := claude.ParseLine(line, nil)
		if err != nil {
			return // validity is claude's to fuzz
		}
		if len(events) != 1 {
			return // data has a type of its own, which wins
		}
		r, ok := events[0].(claude.Result)
		if !ok {
			return
		}
		res, err := FromClaudeResult(r)
		if err != nil {
			t.Fatalf("FromClaudeResult of a parsed result: %v", err)
		}
		checkMoney(t, m["total_cost_usd"], res.TotalCost)
		checkModels(t, m["modelUsage"], res.Models)
		checkModels(t, m["model_usage_since_last_result"], res.RunModels)
		if run, ok := jsonObject(m["model_usage_since_last_result"]); ok {
			if want := sumModels(res.RunModels); res.Run != want {
				t.Fatalf("Run = %+v, want the sum of %d run models %+v", res.Run, len(run), want)
			}
		} else if res.RunModels != nil || res.Run.Cost.Present() {
			t.Fatalf("no run models in the line, but RunModels %v and Run cost %v", res.RunModels, res.Run.Cost)
		}
		_ = res.Totals()
	})
}

// checkModels checks models, read from a modelUsage-shaped member, against
// encoding/json's reading of raw: nil when raw is not an object, else one
// model per member whose (last) value is an object.
func checkModels(t *testing.T, raw json.RawMessage, models []ModelUsage) {
	t.Helper()
	entries, ok := jsonObject(raw)
	if !ok {
		if models != nil {
			t.Fatalf("models %v from %q, which is not an object", models, raw)
		}
		return
	}
	want := 0
	for _, v := range entries {
		if bytes.HasPrefix(bytes.TrimSpace(v), []byte("{")) {
			want++
		}
	}
	if len(models) != want {
		t.Fatalf("%d models, want %d", len(models), want)
	}
	for _, mu := range models {
		e, ok := jsonObject(entries[mu.Model])
		if !ok {
			e = map[string]json.RawMessage{}
		}
		wantMU := ModelUsage{
			Model: mu.Model, InputTokens: jsonTokens(e, "inputTokens"), OutputTokens: jsonTokens(e, "outputTokens"),
			CacheReadInputTokens: jsonTokens(e, "cacheReadInputTokens"), CacheCreationInputTokens: jsonTokens(e, "cacheCreationInputTokens"),
			CacheCreation5mInputTokens: jsonTokens(e, "cacheCreationEphemeral5mInputTokens"),
			CacheCreation1hInputTokens: jsonTokens(e, "cacheCreationEphemeral1hInputTokens"),
			Cost:                       mu.Cost, ContextWindow: jsonTokens(e, "contextWindow"), MaxOutputTokens: jsonTokens(e, "maxOutputTokens"),
		}
		if mu != wantMU {
			t.Fatalf("model %q = %+v, want %+v", mu.Model, mu, wantMU)
		}
		checkMoney(t, e["costUSD"], mu.Cost)
	}
}

func FuzzLoadLiteLLM(f *testing.F) {
	f.Add([]byte(`{"m":{"litellm_provider":"anthropic","input_cost_per_token":3e-06,"output_cost_per_token":1.5e-05,"input_cost_per_token_above_200k_tokens":6e-06}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := LoadLiteLLM(data)
		if err != nil {
			return
		}
		r := Report{Input: CountOf(300_000), Output: CountOf(10), CacheRead: CountOf(0), CacheWrite: CountOf(0)}
		for k, p := range tab.prices {
			if !p.Base.Input.Present() || !p.Base.Output.Present() || k.model == "" {
				t.Fatalf("incomplete price %+v for %+v", p, k)
			}
			r.Identity = Identity{Authority: k.authority, Model: k.model}
			_ = tab.Price(r)
		}
	})
}

func FuzzAuthorityFromBaseURL(f *testing.F) {
	f.Add("https://api.anthropic.com/v1")
	f.Add("https://api.anthropic.com.evil.example")
	f.Add("https://generativelanguage.googleapis.com/v1beta")
	f.Fuzz(func(t *testing.T, base string) {
		auth, ok := AuthorityFromBaseURL(base)
		if !ok {
			if auth != "" {
				t.Fatalf("no authority but %q", auth)
			}
			return
		}
		switch auth {
		case AuthorityAnthropic, AuthorityOpenAI, AuthorityOpenRouter, AuthorityGoogleAI:
		default:
			t.Fatalf("AuthorityFromBaseURL(%q) = %q", base, auth)
		}
		lower := strings.ToLower(base)
		if !strings.HasPrefix(lower, "https://"+auth) {
			t.Fatalf("AuthorityFromBaseURL(%q) = %q, but the URL does not start with https://%s", base, auth, auth)
		}
		// After the host: an optional port that is 443 or empty (the
		// scheme's default, RFC 3986 section 3.2.3), then the end or the
		// path, query or fragment.
		rest := lower[len("https://"+auth):]
		if port, ok := strings.CutPrefix(rest, ":"); ok {
			rest = strings.TrimPrefix(port, "443")
		}
		if rest != "" && !strings.ContainsAny(rest[:1], "/?#") {
			t.Fatalf("AuthorityFromBaseURL(%q) = %q, but the host continues with %q", base, auth, lower[len("https://"+auth):])
		}
	})
}
