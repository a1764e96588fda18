// Package wire reads and writes the JSON of ACP's schema types. It is the
// machinery under the schema layers that internal/acpgen generates (package
// acp's, and any other package of this module generated from an ACP
// schema): a reader that takes a JSON object apart once and reads it member
// by member, so that every error names the member it is about, and an
// encoder that writes JSON straight into a line, without encoding/json.
//
// # Reading
//
// [Read] validates a peer's bytes whole (JSON, UTF-8, depth) in the pass
// that finds an object's members; the objects nested in it are then taken
// apart without validating their bytes again. Each read names its member
// and a [Mode]: whether the member is required, whether null reads as
// absent, whether an invalid value reads as the member's default (the
// schema's x-deserialize-default-on-error) and whether an array's invalid
// items are dropped (x-deserialize-skip-invalid-items). The first failure
// is kept, as a [*FieldError], and every later read is a no-op, so a
// decoder is a flat list of reads followed by one check. Of a repeated
// member the last wins, as with encoding/json. Strings are copied: nothing
// a decoder keeps aliases the bytes it read.
//
// # Writing
//
// An [Encoder] appends one JSON value. What it writes is what
// encoding/json would write for the same value, and valid by
// construction: strings are escaped from Go strings. Only bytes it takes
// from the caller ([Encoder.Raw]) mark the value unchecked, for the
// caller to validate whole.
package wire
