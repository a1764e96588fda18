package claude_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/claude"
)

func ExampleReadInfo() {
	r := strings.NewReader(storedSession)
	info, err := claude.ReadInfo(r, r.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.SessionID)
	fmt.Println(info.CWD)
	fmt.Println(info.Title)
	fmt.Println(info.Updated)

	path, err := claude.SessionFile(info.CWD, info.SessionID)
	fmt.Println(path, err)
	_, err = claude.SessionFile(info.CWD, "../../.ssh/id_ed25519")
	fmt.Println(err)
	// Output:
	// eaca3c35-d13e-4c1d-a95b-a66cef48d210
	// /home/dev/notes
	// Notes
	// 1796158246765
	// -home-dev-notes/eaca3c35-d13e-4c1d-a95b-a66cef48d210.jsonl <nil>
	// claude: invalid session id: "../../.ssh/id_ed25519"
}
