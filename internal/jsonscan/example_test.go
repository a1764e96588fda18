package jsonscan_test

import (
	"fmt"
	"strings"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

func ExampleValid() {
	fmt.Println(jsonscan.Valid([]byte(` {"a":[1,"\ud800"]} `)))
	fmt.Println(jsonscan.Valid([]byte("\"\xff\"")))                 // invalid UTF-8
	fmt.Println(jsonscan.Valid([]byte(strings.Repeat("[", 1<<20)))) // too deep, refused early
	// Output:
	// true
	// false
	// false
}

func ExampleCheck() {
	for _, s := range []string{`{"token":"sk-123",}`, `{"a":1`, `{"a":1} x`} {
		fmt.Println(jsonscan.Check([]byte(s)))
	}
	// Output:
	// jsonscan: expected a member name at offset 18
	// jsonscan: unexpected end of input at offset 6
	// jsonscan: unexpected data after the top-level value at offset 8
}

func ExampleMember() {
	b := []byte(`{"id": 7, "method": "ping", "params": {"n": [1, 2]}}`)
	i := jsonscan.SkipSpace(b, 1) // past '{'
	for {
		key, _, val, next := jsonscan.Member(b, i, jsonscan.MaxDepth-1)
		if next < 0 {
			fmt.Println("not valid")
			return
		}
		fmt.Printf("%s = %s\n", key, val)
		if b[next] == '}' {
			break
		}
		i = jsonscan.SkipSpace(b, next+1) // past ','
	}
	// Output:
	// id = 7
	// method = "ping"
	// params = {"n": [1, 2]}
}
