package cli_test

import (
	"errors"
	"fmt"

	"github.com/acpkit/acpkit/cli"
)

// A CLI package makes its RunErrors with its own words; a program tells
// them apart with errors.Is and errors.As, whichever CLI failed.
func ExampleRunError() {
	reasons := cli.Reasons{cli.ErrAuth: "mycli: credentials refused"}
	var err error = reasons.RunError(cli.ErrAuth, "Invalid API key")

	fmt.Println(err)
	fmt.Println(errors.Is(err, cli.ErrAuth), errors.Is(err, cli.ErrAPI), errors.Is(err, cli.ErrFailed))
	var re *cli.RunError
	if errors.As(err, &re) {
		fmt.Printf("%q\n", re.Message)
	}
	// Output:
	// mycli: credentials refused: Invalid API key
	// true true false
	// "Invalid API key"
}
