package catalog_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/privscan/privscan/catalog"
	"golang.org/x/text/cases"
)

// plaintextWalker walks every value reachable from a root (exported or
// not, through pointers, interfaces, slices, arrays, maps and structs) and
// reports whether any string, byte slice or the raw memory of any
// non-pointer slice or array contains one of the needles.
type plaintextWalker struct {
	needles []string
	seen    map[uintptr]bool
	hits    []string
}

func (w *plaintextWalker) check(b []byte, where string) {
	s := string(b)
	lower := strings.ToLower(s)
	for _, n := range w.needles {
		if strings.Contains(s, n) || strings.Contains(lower, n) {
			w.hits = append(w.hits, where)
			return
		}
	}
}

// pointerFree reports whether values of t hold no pointers, so their
// memory can be inspected as bytes.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return pointerFree(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

func (w *plaintextWalker) walk(v reflect.Value, path string) {
	if !v.IsValid() {
		return
	}
	if v.CanAddr() && !v.CanInterface() {
		v = reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
	}
	switch v.Kind() {
	case reflect.String:
		w.check([]byte(v.String()), path)
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		p := v.Pointer()
		if w.seen[p] {
			return
		}
		w.seen[p] = true
		w.walk(v.Elem(), path+".*")
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem(), path+".(iface)")
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			w.walk(v.Field(i), path+"."+v.Type().Field(i).Name)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return
		}
		n := v.Len()
		if v.Kind() == reflect.Slice {
			n = v.Cap()
			v = v.Slice(0, n)
		}
		if n == 0 {
			return
		}
		if pointerFree(v.Type().Elem()) {
			size := n * int(v.Type().Elem().Size())
			var p unsafe.Pointer
			if v.Kind() == reflect.Slice {
				p = v.UnsafePointer()
			} else if v.CanAddr() {
				p = unsafe.Pointer(v.UnsafeAddr())
			} else {
				return
			}
			w.check(unsafe.Slice((*byte)(p), size), path+"[]")
			return
		}
		for i := 0; i < n; i++ {
			w.walk(v.Index(i), path+"[i]")
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			w.walk(it.Key(), path+"{key}")
			w.walk(it.Value(), path+"{val}")
		}
	}
}

func findPlaintext(root any, needles []string) []string {
	w := &plaintextWalker{needles: needles, seen: map[uintptr]bool{}}
	v := reflect.ValueOf(&root).Elem()
	w.walk(v, "root")
	return w.hits
}

// TestMatcherHoldsNoPlaintext compiles random canary values and proves, by
// walking the whole *Matcher, that none of them (as written or folded, nor
// any word of them) is kept. The same walk over the *Catalog must find
// them, so the walk itself is shown able to fail. Regex values are exempt:
// compiled patterns are kept in memory by design (no canary is a regex).
func TestMatcherHoldsNoPlaintext(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alnum[r.IntN(len(alnum))]
		}
		return string(b)
	}
	var lit, id, sub, cs []string
	var needles []string
	for i := 0; i < 200; i++ {
		v := word(12)
		lit = append(lit, v)
		needles = append(needles, strings.ToLower(v))
	}
	for i := 0; i < 50; i++ {
		a, b, c := word(9), word(10), word(8)
		lit = append(lit, a+" "+b+"  "+c)
		id = append(id, "Käse"+a+" "+b)
		sub = append(sub, c+"-"+word(9)+"\u00e9")
		cs = append(cs, b+"."+a+"@"+c+".example")
		for _, s := range []string{a, b, c} {
			needles = append(needles, strings.ToLower(s))
		}
	}
	for _, v := range append(append(sub, cs...), id...) {
		needles = append(needles, strings.ToLower(v), cases.Fold().String(v))
	}
	c := buildCatalog(
		rspec{id: "LIT", values: lit},
		rspec{id: "ID", match: catalog.MatchIdentifier, values: id},
		rspec{id: "SUB", nb: true, values: sub},
		rspec{id: "CS", cs: true, values: cs},
		rspec{id: "RX", match: catalog.MatchRegex, values: []string{`EMP-\d{6}`}},
	)
	m, err := catalog.Compile(c, &catalog.CompileOptions{HashKey: testKey})
	if err != nil {
		t.Fatal(err)
	}
	// Exercise the matcher (and its scratch pool) on text holding canaries.
	for _, v := range []string{lit[0], id[0], sub[0], cs[0], strings.Replace(id[1], "ä", "a\u0308", 1)} {
		if len(m.Find([]byte("say "+v+" now"), nil)) == 0 {
			t.Errorf("canary not matched")
		}
	}
	if hits := findPlaintext(m, needles); len(hits) > 0 {
		t.Errorf("matcher holds plaintext at %v", hits)
	}
	if hits := findPlaintext(c, needles); len(hits) == 0 {
		t.Error("control failed: the walk found no canary in the catalog")
	}
	// The walk also sees canaries hidden in unexported numeric arrays.
	type hidden struct{ raw [16]byte }
	var h hidden
	copy(h.raw[:], needles[0])
	if hits := findPlaintext(&h, needles); len(hits) == 0 {
		t.Error("control failed: the walk missed a canary in a byte array")
	}
}
