package catalog

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// tableWords holds every word of the string literals of the table and
// schema readers and of the value checks: the only words, besides numbers
// and the schema's column names, that a table error or bad-row reason may
// contain.
var tableWords = sync.OnceValues(func() (map[string]bool, error) {
	words := map[string]bool{}
	err := eachStringLiteral([]string{"table.go", "schema.go", "values.go"}, func(u string) {
		for _, w := range wordRE.FindAllString(u, -1) {
			words[w] = true
		}
	})
	if err != nil {
		return nil, err
	}
	return words, nil
})

var wordRE = regexp.MustCompile(`[\p{L}\p{N}_]+`)

// FuzzReadTable reads arbitrary bytes as each table format with a fixed
// schema: it never panics, a catalog it returns compiles, and no error or
// bad-row reason holds a word that is not the reader's own.
func FuzzReadTable(f *testing.F) {
	f.Add([]byte("name,email\nZelda Quartermaine,zq@example.invalid\n"), uint8(1))
	f.Add([]byte("\xef\xbb\xbfname\temail\nZelda Quartermaine\tzq@example.invalid\nab\tcd\n"), uint8(2))
	f.Add([]byte(`{"name": "Zelda Quartermaine", "email": 42}`+"\n{\"name\": [1]}\nnot json\n"), uint8(3))
	f.Add([]byte("name,email\n\"Open quote,x\nab,\"q\"\"q\"\n\"a\nb\",c\n"), uint8(1))
	f.Add([]byte("name\temail\nBad\xe9Latin\tx@example.invalid\n"), uint8(2))
	words, err := tableWords()
	if err != nil {
		f.Fatal(err)
	}
	s, err := ParseSchema([]byte("max-bad-rows = 3\n[[columns]]\nname = \"name\"\nrule = \"N\"\ncategory = \"person\"\nmatch = \"identifier\"\n[[columns]]\nname = \"email\"\nrule = \"E\"\ncategory = \"email\"\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, format uint8) {
		c, rep, err := ReadTable(bytes.NewReader(data), s, &TableOptions{Format: TableFormat(format%3 + 1)})
		var msgs []string
		if err != nil {
			msgs = append(msgs, err.Error())
		}
		if rep != nil {
			for _, b := range rep.Bad {
				msgs = append(msgs, b.String())
			}
		}
		for _, m := range msgs {
			for _, w := range wordRE.FindAllString(m, -1) {
				if !words[w] && !isDigits(w) && w != "name" && w != "email" && w != "N" && w != "E" {
					t.Fatalf("message %q has a word that is not the reader's: %q", m, w)
				}
			}
		}
		if c == nil {
			return
		}
		if _, err := Compile(c, nil); err != nil && !strings.Contains(err.Error(), "compile") {
			t.Fatalf("a table catalog does not compile: %v", err)
		}
	})
}

func isDigits(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// FuzzParseSchema parses arbitrary schemas: never a panic, and a schema it
// accepts reads a one-row table.
func FuzzParseSchema(f *testing.F) {
	f.Add([]byte("format = \"csv\"\nmax-bad-rows = 2\n[[columns]]\nname = \"n\"\nrule = \"R\"\ncategory = \"person\"\nmatch = \"identifier\"\n"))
	f.Add([]byte("[[columns]]\nname = \"n\"\nrule = \"R\"\ncategory = \"person\"\n[[columns]]\nname = \"m\"\nrule = \"R\"\ncategory = \"person\"\n"))
	f.Add([]byte("name = = 1"))
	// Record rules.
	f.Add([]byte("[[columns]]\nname = \"n\"\nrule = \"N\"\ncategory = \"person\"\ncorroborated-by = [\"e\", \"a\"]\nwithin = 3\n" +
		"[[columns]]\nname = \"e\"\nrule = \"E\"\ncategory = \"email\"\n[[columns]]\nname = \"a\"\nrule = \"A\"\ncategory = \"account\"\nsearch = false\n"))
	f.Add([]byte("[[columns]]\nname = \"n\"\nrule = \"N\"\ncategory = \"person\"\ncorroborated-by = [\"e\"]\nwithin = \"file\"\nuncorroborated = \"note\"\n" +
		"[[columns]]\nname = \"e\"\nrule = \"E\"\ncategory = \"email\"\ncorroborated-by = [\"n\"]\nwithin = 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSchema(data)
		if err != nil {
			return
		}
		var hdr, row []string
		for _, c := range s.Columns {
			hdr = append(hdr, c.Name)
			row = append(row, "Synthetic Value")
		}
		c, _, err := ReadTable(strings.NewReader(strings.Join(hdr, "\t")+"\n"+strings.Join(row, "\t")+"\n"), s, &TableOptions{Format: TableTSV})
		if err != nil {
			return
		}
		// A schema that parses compiles, record rules and all.
		if _, err := Compile(c, nil); err != nil {
			t.Fatalf("a parsed schema's catalog does not compile: %v", err)
		}
	})
}

// FuzzTrimSpaceString checks that a table cell is trimmed as a Markdown
// value line is.
func FuzzTrimSpaceString(f *testing.F) {
	for _, s := range []string{" a ", "\u00a0Zelda\u2003", "\t\v\f\r\n", "\xffx\xff ", " \xc2\x85b\u3000", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, j := trimSpaceIdx([]byte(s))
		if got := trimSpaceString(s); got != s[i:j] {
			t.Fatalf("trimSpaceString(%q) = %q, trimSpaceIdx gives %q", s, got, s[i:j])
		}
	})
}
