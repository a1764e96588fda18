package acp

import (
	"encoding/json"

	"github.com/acpkit/acpkit/internal/wire"
)

// decodeUpdate decodes one update object, the update member of a
// session/update notification; path names it in errors.
func decodeUpdate(raw json.RawMessage, path string) (Update, error) {
	return wire.ReadUnion(raw, path, readUpdate)
}

// decodeContentBlock decodes one content block; path names it in errors.
func decodeContentBlock(raw json.RawMessage, path string) (ContentBlock, error) {
	return wire.ReadUnion(raw, path, readContentBlock)
}

// wireFields is the reader the union decoders take.
type wireFields = wire.Fields

// readUnionValue decodes raw as one variant of the union read reads.
func readUnionValue[T any](raw []byte, read func(*wire.Fields) T) (T, error) {
	return wire.ReadUnion(raw, "value", read)
}
