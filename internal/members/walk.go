package members

import (
	"bytes"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// Walk validates obj, which has no surrounding white space, as one JSON
// object and calls member for each of its members in order, in the same
// pass: each value is validated as it is found, and the whole object is
// never scanned twice. name is unescaped; val is the raw value, a slice
// of obj, which gjson.Parse(View(val)) reads without allocating. Walk
// reports false, having called member for the members before the fault,
// when obj is not a valid JSON object; [jsonscan.CheckObject] then says
// where and why.
func Walk(obj []byte, member func(name string, val []byte)) bool {
	if len(obj) == 0 || obj[0] != '{' {
		return false
	}
	i := jsonscan.SkipSpace(obj, 1)
	if i < len(obj) && obj[i] == '}' {
		return jsonscan.SkipSpace(obj, i+1) == len(obj)
	}
	for {
		key, escaped, val, next := jsonscan.Member(obj, i, jsonscan.MaxDepth-1)
		if next < 0 {
			return false
		}
		name := View(key)
		if escaped {
			name = gjson.Parse(`"` + name + `"`).Str // rare: allocation is fine
		}
		member(name, val)
		if obj[next] == '}' {
			return jsonscan.SkipSpace(obj, next+1) == len(obj)
		}
		i = jsonscan.SkipSpace(obj, next+1) // past ','
	}
}

// Each calls member for each member of obj, a JSON object that has
// already been validated (by [Walk], or as part of a value that was),
// in order, without validating it again and without reading the values,
// so that a reader looks only at the members it keeps: name is unescaped,
// val the raw value, a slice of obj. On bytes that are not a valid object
// it stops early; it never panics and never reads past obj.
func Each(obj []byte, member func(name string, val []byte)) {
	if len(obj) == 0 || obj[0] != '{' {
		return
	}
	i := jsonscan.SkipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		end := jsonscan.Skip(obj, i)
		if end < 0 {
			return
		}
		key := obj[i+1 : end-1]
		i = jsonscan.SkipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = jsonscan.SkipSpace(obj, i+1)
		vend := jsonscan.Skip(obj, i)
		if vend < 0 {
			return
		}
		name := View(key)
		if bytes.IndexByte(key, '\\') >= 0 {
			name = gjson.Parse(`"` + name + `"`).Str // rare: allocation is fine
		}
		member(name, obj[i:vend])
		i = jsonscan.SkipSpace(obj, vend)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i = jsonscan.SkipSpace(obj, i+1)
	}
}
