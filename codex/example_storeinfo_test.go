package codex_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/codex"
)

func ExampleReadInfo() {
	r := strings.NewReader(storedRollout)
	info, err := codex.ReadInfo(r, r.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.SessionID, info.CWD)
	fmt.Println(info.Title)
	fmt.Println(info.Updated)
	// Output:
	// 01a23365-5f5f-7923-b1f2-69bd6d41c2c7 /home/dev/notes
	// Run echo hi.
	// 1796158611726
}
