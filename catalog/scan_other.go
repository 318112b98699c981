//go:build !amd64 || purego

package catalog

// scanState is scanQuiet's state in one line: none without assembly.
type scanState struct{}

// asmTabs is empty without assembly.
type asmTabs struct{}

func (t *asmTabs) init(*Matcher) {}

// scanQuiet is scanQuietGo.
func (m *Matcher) scanQuiet(b []byte, i int, split, anchors uint8, _ *scanState) (s, e int, first, rest uint8, pre uint64, anch uint8) {
	return m.scanQuietGo(b, i, split, anchors)
}
