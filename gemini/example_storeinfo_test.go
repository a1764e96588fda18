package gemini_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/gemini"
)

func ExampleReadInfo() {
	r := strings.NewReader(storedSession)
	info, err := gemini.ReadInfo(r, r.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.SessionID)
	fmt.Println(info.Title)
	fmt.Println(info.Updated)
	// Output:
	// 70c7e5f7-d9a6-4069-95ce-50e60472dd03
	// Echo in the shell
	// 1796159224875
}
