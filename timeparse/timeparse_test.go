package timeparse

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type msResult struct {
	MS int64
	OK bool
}

func TestEpochMillis(t *testing.T) {
	tests := []struct {
		name string
		in   int64
		want msResult
	}{
		{"zero is unknown", 0, msResult{}},
		{"negative is unknown", -1, msResult{}},
		{"min int64", math.MinInt64, msResult{}},
		{"one second", 1, msResult{1000, true}},
		{"seconds", 1778598000, msResult{1778598000000, true}},
		{"largest seconds", SecondsThreshold - 1, msResult{(SecondsThreshold - 1) * 1000, true}},
		{"threshold is milliseconds", SecondsThreshold, msResult{SecondsThreshold, true}},
		{"milliseconds", 1778598000123, msResult{1778598000123, true}},
		{"max int64", math.MaxInt64, msResult{math.MaxInt64, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, ok := EpochMillis(tt.in)
			if diff := cmp.Diff(tt.want, msResult{ms, ok}); diff != "" {
				t.Errorf("EpochMillis(%d) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFloatEpochMillis(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want msResult
	}{
		{"NaN", math.NaN(), msResult{}},
		{"+Inf", math.Inf(1), msResult{}},
		{"-Inf", math.Inf(-1), msResult{}},
		{"zero", 0, msResult{}},
		{"negative zero", math.Copysign(0, -1), msResult{}},
		{"negative", -1.5, msResult{}},
		{"below a millisecond", 0.0004, msResult{}},
		{"one millisecond", 0.001, msResult{1, true}},
		{"seconds floored", 1778598000.1239, msResult{1778598000123, true}},
		{"whole seconds", 1778598000, msResult{1778598000000, true}},
		{"milliseconds floored", 1778598000123.9, msResult{1778598000123, true}},
		{"threshold", 1e12, msResult{1e12, true}},
		{"largest that fits", math.Nextafter(1<<63, 0), msResult{int64(math.Nextafter(1<<63, 0)), true}},
		{"2^63 overflows", 1 << 63, msResult{}},
		{"huge", 1e300, msResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, ok := FloatEpochMillis(tt.in)
			if diff := cmp.Diff(tt.want, msResult{ms, ok}); diff != "" {
				t.Errorf("FloatEpochMillis(%v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseMillis(t *testing.T) {
	// 2026-05-12T15:00:00Z
	const base = 1778598000000
	tests := []struct {
		in   string
		want msResult
	}{
		// Numeric epochs.
		{"1778598000", msResult{base, true}},
		{" 1778598000\n", msResult{base, true}},
		{"+1778598000", msResult{base, true}},
		{"1778598000123", msResult{base + 123, true}},
		{"1778598000.5", msResult{base + 500, true}},
		{"1778598000.", msResult{base, true}},
		{".5", msResult{500, true}},
		{"1.778598e9", msResult{base, true}},
		{"1778598000123.7", msResult{base + 123, true}},
		{"0", msResult{}},
		{"-1778598000", msResult{}},
		{"0.0", msResult{}},
		{"99999999999999999999", msResult{}},
		{"-99999999999999999999", msResult{}},
		{"1e400", msResult{}},
		{"9223372036854775807", msResult{math.MaxInt64, true}},
		// Not numbers.
		{"", msResult{}},
		{"   ", msResult{}},
		{"inf", msResult{}},
		{"NaN", msResult{}},
		{"0x10", msResult{}},
		{"1_000", msResult{}},
		{"1e", msResult{}},
		{"1e+", msResult{}},
		{".", msResult{}},
		{"-", msResult{}},
		{"12abc", msResult{}},
		// RFC 3339 / ISO 8601.
		{"2026-05-12T15:00:00Z", msResult{base, true}},
		{"2026-05-12t15:00:00z", msResult{base, true}},
		{"2026-05-12 15:00:00Z", msResult{base, true}},
		{"2026-05-12T15:00:00", msResult{base, true}},
		{"2026-05-12T15:00:00.1Z", msResult{base + 100, true}},
		{"2026-05-12T15:00:00.123456789Z", msResult{base + 123, true}},
		{"2026-05-12T15:00:00.9999999999999999999Z", msResult{base + 999, true}},
		{"2026-05-12T17:00:00+02:00", msResult{base, true}},
		{"2026-05-12T10:30:00-04:30", msResult{base, true}},
		{"2026-05-12T15:00:00.250+00:00", msResult{base + 250, true}},
		{"2024-02-29T00:00:00Z", msResult{1709164800000, true}},
		{"1970-01-01T00:00:00.001Z", msResult{1, true}},
		{"9999-12-31T23:59:59.999Z", msResult{253402300799999, true}},
		// Out of range or malformed.
		{"1970-01-01T00:00:00Z", msResult{}},
		{"1969-12-31T23:59:59Z", msResult{}},
		{"9999-12-31T23:59:59-01:00", msResult{}},
		{"2023-02-29T00:00:00Z", msResult{}},
		{"2026-13-01T00:00:00Z", msResult{}},
		{"2026-00-01T00:00:00Z", msResult{}},
		{"2026-04-31T00:00:00Z", msResult{}},
		{"2026-05-12T24:00:00Z", msResult{}},
		{"2026-05-12T15:60:00Z", msResult{}},
		{"2026-05-12T15:00:60Z", msResult{}},
		{"2026-05-12", msResult{}},
		{"2026-05-12T15:00Z", msResult{}},
		{"2026-05-12X15:00:00Z", msResult{}},
		{"2026-05-12T15:00:00.Z", msResult{}},
		{"2026-05-12T15:00:00+0200", msResult{}},
		{"2026-05-12T15:00:00+24:00", msResult{}},
		{"2026-05-12T15:00:00+02:60", msResult{}},
		{"2026-05-12T15:00:00 UTC", msResult{}},
		{"2026-05-12T15:00:00Zjunk", msResult{}},
		{"2026-5-12T15:00:00Z", msResult{}},
		{"+026-05-12T15:00:00Z", msResult{}},
		{"Tue, 12 May 2026 15:00:00 GMT", msResult{}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			ms, ok := ParseMillis(tt.in)
			if diff := cmp.Diff(tt.want, msResult{ms, ok}); diff != "" {
				t.Errorf("ParseMillis(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestParseMillisAgreesWithTime checks the hand-written RFC 3339 reader
// against the standard library on the inputs both accept.
func TestParseMillisAgreesWithTime(t *testing.T) {
	for _, s := range []string{
		"2026-05-12T15:00:00Z",
		"2001-09-09T01:46:40.5+05:30",
		"2100-02-28T23:59:59.999-11:59",
		"1999-12-31T23:59:59.123456Z",
	} {
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		ms, ok := ParseMillis(s)
		if diff := cmp.Diff(msResult{tm.UnixMilli(), true}, msResult{ms, ok}); diff != "" {
			t.Errorf("ParseMillis(%q) mismatch (-want +got):\n%s", s, diff)
		}
	}
}

func FuzzParseMillis(f *testing.F) {
	for _, s := range []string{
		"1778598000", "1778598000123", "1778598000.5", "2026-05-12T15:00:00Z",
		"2026-05-12 17:00:00.123456+02:00", "0", "-1", "1e400", "NaN",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, ok := ParseMillis(s)
		if ok && ms <= 0 {
			t.Fatalf("ParseMillis(%q) = %d, ok but not positive", s, ms)
		}
		// An integer epoch in seconds is exactly ×1000.
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && numberKind(s) == kindInt && v > 0 && v < SecondsThreshold {
			if !ok || ms != v*1000 {
				t.Fatalf("ParseMillis(%q) = %d, %v; want %d, true", s, ms, ok, v*1000)
			}
		}
		// RFC 3339 text survives a round trip through time's formatter.
		if ok && numberKind(strings.TrimSpace(s)) == kindNone {
			again := time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)
			ms2, ok2 := ParseMillis(again)
			if !ok2 || ms2 != ms {
				t.Fatalf("ParseMillis(%q) = %d; reformatted %q gives %d, %v", s, ms, again, ms2, ok2)
			}
		}
	})
}

func FuzzEpochMillis(f *testing.F) {
	for _, v := range []int64{0, -1, 1, 1778598000, SecondsThreshold - 1, SecondsThreshold, math.MaxInt64, math.MinInt64} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		ms, ok := EpochMillis(v)
		switch {
		case v <= 0:
			if ok {
				t.Fatalf("EpochMillis(%d) = %d, ok; want not ok", v, ms)
			}
		case v < SecondsThreshold:
			if !ok || ms != v*1000 {
				t.Fatalf("EpochMillis(%d) = %d, %v; want %d", v, ms, ok, v*1000)
			}
		default:
			if !ok || ms != v {
				t.Fatalf("EpochMillis(%d) = %d, %v; want %d", v, ms, ok, v)
			}
		}
		// The decimal text form agrees with the integer form.
		ms2, ok2 := ParseMillis(strconv.FormatInt(v, 10))
		if ms2 != ms || ok2 != ok {
			t.Fatalf("ParseMillis(%d) = %d, %v; EpochMillis gives %d, %v", v, ms2, ok2, ms, ok)
		}
	})
}

func FuzzFloatEpochMillis(f *testing.F) {
	for _, v := range []float64{0, -1, 0.001, 1778598000.5, 1e12, 1 << 63, math.Inf(1), math.NaN()} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		ms, ok := FloatEpochMillis(v)
		if !ok {
			return
		}
		if ms <= 0 {
			t.Fatalf("FloatEpochMillis(%v) = %d, ok but not positive", v, ms)
		}
		want := v
		if v < SecondsThreshold {
			want = v * 1000
		}
		if float64(ms) != math.Floor(want) {
			t.Fatalf("FloatEpochMillis(%v) = %d, not the floor of %v", v, ms, want)
		}
	})
}
