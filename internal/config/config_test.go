package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/privscan/privscan/finding"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    *Repo
		wantErr string // substring; "" means success
	}{
		{name: "empty", in: "", want: &Repo{Detectors: map[string]bool{}, Severity: map[string]finding.Severity{}}},
		{
			name: "full",
			in: `fail-on = "error"
exclude = ["testdata/**", "**/*.golden"]
[detectors]
phone = false
secrets = true
[severity]
"catalog/PER-001" = "warning"
"pii/email" = "off"
`,
			want: &Repo{
				FailOn:    "error",
				Exclude:   []string{"testdata/**", "**/*.golden"},
				Detectors: map[string]bool{"phone": false, "secrets": true},
				Severity:  map[string]finding.Severity{"catalog/PER-001": finding.SeverityWarning, "pii/email": 0},
			},
		},
		{name: "fail-on never", in: `fail-on = "never"`, want: &Repo{FailOn: "never", Detectors: map[string]bool{}, Severity: map[string]finding.Severity{}}},
		{name: "bad fail-on", in: `fail-on = "Jane Doe"`, wantErr: "fail-on must be error, warning, note or never"},
		{name: "syntax error names the line", in: "fail-on = \"x\"\n\nexclude = [\"Jane Doe\"", wantErr: ".privscan.toml line 3: invalid TOML"},
		{name: "wrong type", in: `exclude = "Jane Doe"`, wantErr: "invalid TOML or wrong value type"},
		{name: "wrong detector type", in: "[detectors]\nphone = \"Jane Doe\"", wantErr: "invalid TOML or wrong value type"},
		{name: "unknown top-level key", in: `colour = "Jane Doe"`, wantErr: `unknown key at the top level (known: fail-on, exclude, detectors, severity)`},
		{name: "unknown nested key", in: "[extra]\nx = \"Jane Doe\"", wantErr: `unknown key at the top level (known: fail-on, exclude, detectors, severity)`},
		{name: "unknown key is not repeated", in: `Jane_Doe = 1`, wantErr: `unknown key at the top level (known: fail-on, exclude, detectors, severity)`},
		{name: "unknown detector", in: "[detectors]\nJaneDoe = true", wantErr: `unknown key in [detectors] (known: email,`},
		{name: "severity id without slash", in: "[severity]\nJANE-DOE = \"error\"", wantErr: `severity: a key is not a rule ID`},
		{name: "severity bad level", in: "[severity]\n\"catalog/JaneDoe\" = \"Jane Doe\"", wantErr: `severity: a level must be error, warning, note or off`},
		{name: "invalid glob is not quoted", in: `exclude = ["ok/**", "Jane[Doe"]`, wantErr: "exclude: glob 2 of 2 is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("Parse succeeded, want error containing %q", tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %q, want it to contain %q", err, tt.wantErr)
				}
				if strings.Contains(strings.ToLower(err.Error()), "jane") {
					t.Fatalf("error quotes a value: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestExcluded(t *testing.T) {
	r := &Repo{Exclude: []string{"testdata/**", "**/*.golden", "docs/*.md"}}
	for path, want := range map[string]bool{
		"testdata/a.txt":       true,
		"testdata/deep/x/y.go": true,
		"a/b/c.golden":         true,
		"x.golden":             true,
		"docs/a.md":            true,
		"docs/sub/a.md":        false,
		"main.go":              false,
		"testdatax/a":          false,
		"":                     false,
	} {
		if got := r.Excluded(path); got != want {
			t.Errorf("Excluded(%q) = %v, want %v", path, got, want)
		}
	}
	if (&Repo{}).Excluded("a") {
		t.Error("an empty config excludes a path")
	}
}

func TestParseIgnore(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]bool
		wantErr string
	}{
		{name: "empty", in: "", want: map[string]bool{}},
		{name: "comments and blanks", in: "# header\n\n  \t\n", want: map[string]bool{}},
		{
			name: "fingerprints, case folded, trailing comment, CRLF",
			in:   "0123456789ABCDEF # reviewed\r\n  deadbeefcafe0001  trailing words\r\nfeedface\n",
			want: map[string]bool{"0123456789abcdef": true, "deadbeefcafe0001": true, "feedface": true},
		},
		{name: "not hex", in: "deadbeef\nJane Doe\n", wantErr: ".privscanignore line 2: not a fingerprint"},
		{name: "too short", in: "abc\n", wantErr: "line 1: not a fingerprint"},
		{name: "too long", in: strings.Repeat("a", 65), wantErr: "line 1: not a fingerprint"},
		{name: "64 digits", in: strings.Repeat("a", 64), want: map[string]bool{strings.Repeat("a", 64): true}},
		{name: "line over the size limit", in: strings.Repeat("a", maxFileSize+1), wantErr: ".privscanignore: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseIgnore([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "Jane") || strings.Contains(err.Error(), "aaaaaaaa") {
					t.Fatalf("error quotes the input: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseIgnore = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	if r, err := Load(missing); err != nil || r == nil || r.FailOn != "" {
		t.Fatalf("Load(missing) = %v, %v", r, err)
	}
	if m, err := LoadIgnore(missing); err != nil || len(m) != 0 {
		t.Fatalf("LoadIgnore(missing) = %v, %v", m, err)
	}

	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", maxFileSize)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Fatalf("Load(big): %v", err)
	}

	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Load(dir): %v", err)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 2)
	go func() {
		_, err := Load(fifo)
		done <- err
		_, err = LoadIgnore(fifo)
		done <- err
	}()
	for i := 0; i < 2; i++ {
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("FIFO: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("reading a FIFO blocked")
		}
	}
}

// repoErrorShape lists every message Parse may return. The only parts that
// come from the input are line numbers and counts.
var repoErrorShape = regexp.MustCompile(`^\.privscan\.toml(` +
	` line \d+: invalid TOML( or wrong value type)?` +
	`|: invalid TOML or wrong value type` +
	`|: unknown key at the top level \(known: fail-on, exclude, detectors, severity\)` +
	`|: fail-on must be error, warning, note or never` +
	`|: exclude: glob \d+ of \d+ is invalid` +
	`|: unknown key in \[detectors\] \(known: [a-z, -]+\)` +
	`|: severity: a key is not a rule ID \(want catalog/<id>, pii/<name> or secret/<id>\)` +
	`|: severity: a level must be error, warning, note or off` +
	`)$`)

var quoted = regexp.MustCompile(`"(?:\\.|[^"\\])*"`)

func FuzzParseRepo(f *testing.F) {
	for _, s := range []string{
		"fail-on = \"warning\"\nexclude = [\"testdata/**\"]\n[detectors]\nphone = false\n[severity]\n\"catalog/A\" = \"off\"\n",
		"exclude = [\"[\"]\n",
		"[detectors]\n\"\\u0000\" = true\n",
		"[severity]\n\"a/b\" = 3\n",
		"x = \"\"\"\nmulti\n\"\"\"\n",
		"[[severity]]\n",
		"\ufefffail-on = 'note'\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err == nil {
			if r == nil || r.Detectors == nil || r.Severity == nil {
				t.Fatalf("Parse returned %+v without error", r)
			}
			for _, g := range r.Exclude {
				r.Excluded(g)
			}
			return
		}
		msg := err.Error()
		if !repoErrorShape.MatchString(msg) {
			t.Fatalf("error %q has an unexpected shape (it may quote input)", msg)
		}
		// A quoted part is a key: never a string value of the document
		// (unless that value is also spelled as a key).
		var doc map[string]any
		if derr := toml.Unmarshal(data, &doc); derr != nil {
			return
		}
		keys, values := walk(doc, nil, nil)
		for _, q := range quoted.FindAllString(msg, -1) {
			for _, v := range values {
				if len(v) < 4 || !strings.Contains(q, strings.Trim(strconv.Quote(v), `"`)) {
					continue
				}
				if !strings.Contains(strings.Join(keys, "\x00"), v) {
					t.Fatalf("error %q quotes the value %q", msg, v)
				}
			}
		}
	})
}

// walk collects the keys and the string values of a decoded TOML document.
func walk(v any, keys, values []string) ([]string, []string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			keys = append(keys, k)
			keys, values = walk(e, keys, values)
		}
	case []map[string]any:
		for _, e := range x {
			keys, values = walk(e, keys, values)
		}
	case []any:
		for _, e := range x {
			keys, values = walk(e, keys, values)
		}
	case string:
		values = append(values, x)
	}
	return keys, values
}

func FuzzParseIgnore(f *testing.F) {
	for _, s := range []string{
		"# comment\n0123456789abcdef\n",
		"DEADBEEF # x\r\n\r\n",
		"zzzzzzzz\n",
		"abc\n",
		"\x00\xff\n",
		"   feedfacefeedface   extra words\n",
	} {
		f.Add([]byte(s))
	}
	shape := regexp.MustCompile(`^\.privscanignore(` +
		` line \d+: not a fingerprint \(want hex digits\)` +
		`|: bufio\.Scanner: token too long` +
		`)$`)
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseIgnore(data)
		if err != nil {
			if !shape.MatchString(err.Error()) {
				t.Fatalf("error %q has an unexpected shape", err)
			}
			return
		}
		for fp := range m {
			if !isHex(fp) || strings.ToLower(fp) != fp {
				t.Fatalf("kept %q, not a lower-case fingerprint", fp)
			}
			if !strings.Contains(strings.ToLower(string(data)), fp) {
				t.Fatalf("kept %q, not in the input", fp)
			}
		}
	})
}

// TestParseDecoderPanic: an unknown quoted key with an escape in it made
// go-toml v2.2.3 panic while it reported the key (found by FuzzParseRepo);
// Parse reports it as the unknown key it is, without its text.
func TestParseDecoderPanic(t *testing.T) {
	_, err := Parse([]byte("\"0\\b0000\"=\"\""))
	if err == nil || !strings.Contains(err.Error(), "unknown key at the top level") {
		t.Fatalf("Parse = %v, want an unknown-key error", err)
	}
	if strings.Contains(err.Error(), "0000") {
		t.Fatalf("Parse = %v: the error quotes the key", err)
	}
}
