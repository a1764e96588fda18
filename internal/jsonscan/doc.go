// Package jsonscan is the module's one JSON validator: a single-pass,
// non-recursive scanner over raw bytes that checks JSON (RFC 8259) and
// UTF-8 in the same pass, without decoding or allocating.
//
// # Validating
//
// [Valid] reports whether bytes hold exactly one JSON value, with optional
// white space around it, in valid UTF-8, nesting at most [MaxDepth] arrays
// and objects. It agrees with encoding/json's Valid on every input that is
// valid UTF-8 (a lone surrogate escape such as "\ud800" is accepted, as
// encoding/json accepts it); a byte-order mark is not JSON. [Check] does the
// same work and, for bytes that are not valid, says where they stop being
// JSON and why in a [*SyntaxError], which never quotes the input.
//
// Unlike gjson.ValidBytes, which recurses once per nesting level so that a
// long enough line of '[' overflows the goroutine stack (a fatal error no
// recover catches), the scanner loops: hostile nesting costs one bit of
// memory per level and is refused past [MaxDepth].
//
// # Walking an object
//
// [SkipSpace] and [Member] let a reader validate an object and find the
// members it needs in the same pass, as acp.Classify does: Member reads one
// member at a time, validating its value, and returns its name and raw value
// as slices of the input.
package jsonscan
