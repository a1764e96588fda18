package timeparse_test

import (
	"fmt"
	"math"

	"github.com/acpkit/acpkit/timeparse"
)

func ExampleParseMillis() {
	for _, s := range []string{
		"1778598000",                // epoch seconds
		"1778598000123",             // epoch milliseconds
		"2026-05-12T17:00:00+02:00", // RFC 3339 with an offset
		"2026-05-12 15:00:00.5",     // space separator, no zone: UTC
		"0",                         // the CLI's "unknown"
		"soon",
	} {
		ms, ok := timeparse.ParseMillis(s)
		fmt.Println(ms, ok)
	}
	// Output:
	// 1778598000000 true
	// 1778598000123 true
	// 1778598000000 true
	// 1778598000500 true
	// 0 false
	// 0 false
}

func ExampleEpochMillis() {
	fmt.Println(timeparse.EpochMillis(1778598000))
	fmt.Println(timeparse.EpochMillis(1778598000123))
	fmt.Println(timeparse.EpochMillis(0))
	// Output:
	// 1778598000000 true
	// 1778598000123 true
	// 0 false
}

func ExampleFloatEpochMillis() {
	fmt.Println(timeparse.FloatEpochMillis(1778598000.5))    // seconds, floored to the millisecond
	fmt.Println(timeparse.FloatEpochMillis(1778598000123.9)) // already milliseconds
	fmt.Println(timeparse.FloatEpochMillis(math.NaN()))
	// Output:
	// 1778598000500 true
	// 1778598000123 true
	// 0 false
}
