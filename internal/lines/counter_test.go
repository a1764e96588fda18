package lines_test

import (
	"testing"

	"github.com/acpkit/acpkit/internal/lines"
	"github.com/google/go-cmp/cmp"
)

func TestCounter(t *testing.T) {
	var c lines.Counter
	var got [][2]int64
	for _, l := range []string{"ab\n", "", "cde", "\n"} {
		n, off := c.Next([]byte(l))
		got = append(got, [2]int64{n, off})
	}
	if diff := cmp.Diff([][2]int64{{1, 0}, {2, 3}, {3, 4}, {4, 8}}, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}
