package usage

import (
	"fmt"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// tot builds Totals from input, output and cache read; negative is absent.
func tot(in, out, read int64) Totals {
	c := func(v int64) Count {
		if v < 0 {
			return Count{}
		}
		return CountOf(uint64(v))
	}
	return Totals{Input: c(in), Output: c(out), CacheRead: c(read)}
}

// step is one tracker event: a snapshot for a session, or a turn end.
type step struct {
	session string
	snap    *Totals // nil: end the turn
}

func obs(s string, t Totals) step { return step{session: s, snap: &t} }
func end(s string) step           { return step{session: s} }

func TestTracker(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []TurnDelta // one per end step
	}{
		{
			name: "high-water mark ignores a late snapshot",
			steps: []step{
				obs("s", tot(100, 10, 0)), end("s"),
				obs("s", tot(150, 20, 30)),
				obs("s", tot(180, 25, 40)),
				obs("s", tot(150, 20, 30)), // late
				obs("s", tot(180, 25, 40)), // duplicate
				end("s"),
			},
			want: []TurnDelta{
				{Status: DeltaNoBaseline, Mark: tot(100, 10, 0)},
				{Status: DeltaOK, Mark: tot(180, 25, 40), Usage: tot(80, 15, 40)},
			},
		},
		{
			name: "regression after a restart resets the baseline",
			steps: []step{
				obs("s", tot(1000, 100, 500)), end("s"),
				obs("s", tot(1500, 150, 700)), end("s"),
				obs("s", tot(200, 20, 0)), end("s"), // the agent restarted
				obs("s", tot(300, 30, 50)), end("s"),
			},
			want: []TurnDelta{
				{Status: DeltaNoBaseline, Mark: tot(1000, 100, 500)},
				{Status: DeltaOK, Mark: tot(1500, 150, 700), Usage: tot(500, 50, 200)},
				{Status: DeltaRegressed, Mark: tot(200, 20, 0)},
				{Status: DeltaOK, Mark: tot(300, 30, 50), Usage: tot(100, 10, 50)},
			},
		},
		{
			name: "a single counter going down is a regression",
			steps: []step{
				obs("s", tot(10, 10, 10)), end("s"),
				obs("s", tot(20, 20, 9)), end("s"),
			},
			want: []TurnDelta{
				{Status: DeltaNoBaseline, Mark: tot(10, 10, 10)},
				{Status: DeltaRegressed, Mark: tot(20, 20, 9)},
			},
		},
		{
			name: "absent on either side makes only that delta unknown",
			steps: []step{
				obs("s", tot(10, 10, -1)), end("s"),
				obs("s", tot(20, -1, 5)), end("s"),
				obs("s", tot(30, 30, 6)), end("s"),
			},
			want: []TurnDelta{
				{Status: DeltaNoBaseline, Mark: tot(10, 10, -1)},
				{Status: DeltaOK, Mark: tot(20, -1, 5), Usage: tot(10, -1, -1)},
				{Status: DeltaOK, Mark: tot(30, 30, 6), Usage: tot(10, -1, 1)},
			},
		},
		{
			name: "an absent figure in one snapshot keeps the other's value",
			steps: []step{
				obs("s", tot(10, 10, 10)), end("s"),
				obs("s", tot(20, 20, 20)),
				obs("s", tot(-1, -1, -1)),
				end("s"),
			},
			want: []TurnDelta{
				{Status: DeltaNoBaseline, Mark: tot(10, 10, 10)},
				{Status: DeltaOK, Mark: tot(20, 20, 20), Usage: tot(10, 10, 10)},
			},
		},
		{
			name: "a turn without snapshots keeps the baseline",
			steps: []step{
				end("s"),
				obs("s", tot(10, 1, 0)), end("s"),
				end("s"),
				obs("s", tot(30, 3, 0)), end("s"),
			},
			want: []TurnDelta{
				{Status: DeltaNoReport},
				{Status: DeltaNoBaseline, Mark: tot(10, 1, 0)},
				{Status: DeltaNoReport},
				{Status: DeltaOK, Mark: tot(30, 3, 0), Usage: tot(20, 2, 0)},
			},
		},
		{
			name: "sessions are independent",
			steps: []step{
				obs("a", tot(10, 1, 0)), obs("b", tot(500, 50, 0)),
				end("a"), end("b"),
				obs("b", tot(600, 60, 0)), obs("a", tot(15, 2, 0)),
				end("b"), end("a"),
			},
			want: []TurnDelta{
				{Status: DeltaNoBaseline, Mark: tot(10, 1, 0)},
				{Status: DeltaNoBaseline, Mark: tot(500, 50, 0)},
				{Status: DeltaOK, Mark: tot(600, 60, 0), Usage: tot(100, 10, 0)},
				{Status: DeltaOK, Mark: tot(15, 2, 0), Usage: tot(5, 1, 0)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr Tracker
			var got []TurnDelta
			for _, s := range tt.steps {
				if s.snap != nil {
					tr.Observe(s.session, *s.snap)
				} else {
					got = append(got, tr.EndTurn(s.session))
				}
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Count{})); diff != "" {
				t.Errorf("deltas (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTrackerForget(t *testing.T) {
	var tr Tracker
	tr.Observe("a", tot(10, 1, 0))
	tr.EndTurn("a")
	tr.Observe("b", tot(1, 1, 1))
	if tr.Len() != 2 {
		t.Fatalf("Len = %d, want 2", tr.Len())
	}
	tr.Forget("a")
	if tr.Len() != 1 {
		t.Fatalf("Len after Forget = %d, want 1", tr.Len())
	}
	tr.Observe("a", tot(20, 2, 0))
	if d := tr.EndTurn("a"); d.Status != DeltaNoBaseline {
		t.Errorf("after Forget the first turn has status %v, want no-baseline", d.Status)
	}
}

func TestTrackerConcurrent(t *testing.T) {
	var tr Tracker
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			s := fmt.Sprint("s", i)
			for n := range 100 {
				tr.Observe(s, tot(int64(n), int64(n), 0))
				if n%10 == 9 {
					tr.EndTurn(s)
				}
			}
		})
	}
	testwait.Do(t, "the goroutines observing", wg.Wait)
	if tr.Len() != 4 {
		t.Errorf("Len = %d, want 4", tr.Len())
	}
}

func TestDeltaStatusString(t *testing.T) {
	got := fmt.Sprint(DeltaNoReport, DeltaNoBaseline, DeltaRegressed, DeltaOK, DeltaStatus(9))
	if want := "no-report no-baseline regressed ok DeltaStatus(?)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
