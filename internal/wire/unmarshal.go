package wire

// ParamsError turns the failure to decode a params type, a
// [*FieldError] or the error a nested UnmarshalJSON returned, into the
// error the type's UnmarshalJSON returns. Package acp sets it at init,
// so that the error is the *acp.Error that acp.DecodeParams returns for
// the same bytes; until then the failure is returned as is.
var ParamsError = func(err error) error { return err }

// UnmarshalParams implements json.Unmarshaler for a params type of a
// generated schema layer, so that encoding/json applies the checks of
// acp.DecodeParams wherever the type is nested: it reads data with
// decode, and returns the failure as [ParamsError] makes it. By the
// Unmarshaler convention, null leaves *dst unchanged.
func UnmarshalParams[T any](data []byte, dst *T, decode func(*T, *Fields)) error {
	if string(TrimSpace(data)) == "null" {
		return nil
	}
	var v T
	f := Read(data, "params")
	if f.Err() == nil {
		decode(&v, f)
	}
	if err := f.Err(); err != nil {
		return ParamsError(err)
	}
	*dst = v
	return nil
}

// UnmarshalList implements json.Unmarshaler for a list of union
// variants, such as acp.ContentBlocks: it reads each item with read, and
// returns the failure of a variant that breaks the schema, naming it
// ("[1].text"), as [ParamsError] makes it. null leaves *dst unchanged.
func UnmarshalList[S ~[]T, T any](data []byte, dst *S, read func(*Fields) T) error {
	if string(TrimSpace(data)) == "null" {
		return nil
	}
	items := ScanArray(TrimSpace(data), true)
	if items == nil {
		return ParamsError(&FieldError{Reason: "must be an array"})
	}
	out := make(S, 0, len(items))
	for i, item := range items {
		f := ReadValid(item)
		var v T
		if f.Err() == nil {
			v = read(f)
		}
		if err := f.Err(); err != nil {
			if fe, ok := err.(*FieldError); ok {
				err = &FieldError{JoinPath(IndexPath("", i), fe.Path), fe.Reason}
			}
			return ParamsError(err)
		}
		out = append(out, v)
	}
	*dst = out
	return nil
}
