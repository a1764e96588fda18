package lines

// Counter numbers the lines a parser's Feed is given, one per call, and
// finds their offsets by adding up their lengths, counting a "\n" after a
// line given without one: the positions a [Reader] would report for the
// same lines. The zero Counter starts at line 1, offset 0.
type Counter struct {
	n      int64 // lines counted
	offset int64 // offset of the next line
}

// Next counts line and returns its 1-based number and its offset.
func (c *Counter) Next(line []byte) (n, offset int64) {
	c.n++
	offset = c.offset
	c.offset += int64(len(line))
	if len(line) == 0 || line[len(line)-1] != '\n' {
		c.offset++
	}
	return c.n, offset
}
