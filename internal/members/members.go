// Package members reads the members of a JSON object that gjson parsed, by
// walking the object rather than through a gjson path, so that no member
// name is ever read as path syntax ('.', '*', '?', '|', '#' or an '@'
// modifier). Names are compared after unescaping, and of a repeated name the
// last occurrence wins, as with encoding/json. It also reads and copies
// the values the parsers keep, so that none aliases the line it came from.
package members

import (
	"slices"

	"github.com/tidwall/gjson"
)

// Get returns the value of obj's member named name, or the zero Result when
// obj is not an object or has no such member.
func Get(obj gjson.Result, name string) gjson.Result {
	var v gjson.Result
	if !obj.IsObject() {
		return v
	}
	obj.ForEach(func(k, val gjson.Result) bool {
		if k.Str == name {
			v = val
		}
		return true
	})
	return v
}

// GetAll returns the values of obj's members with the given names, in the
// order of names, in one walk of obj; a missing member (or a non-object obj)
// gives the zero Result.
func GetAll(obj gjson.Result, names ...string) []gjson.Result {
	out := make([]gjson.Result, len(names))
	if !obj.IsObject() {
		return out
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		if i := slices.Index(names, k.Str); i >= 0 {
			out[i] = v
		}
		return true
	})
	return out
}
