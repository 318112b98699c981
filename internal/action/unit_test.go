package action

import (
	"regexp"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/engine"
)

const (
	sha1 = "0123456789abcdef0123456789abcdef01234567"
	sha2 = "89abcdef0123456789abcdef0123456789abcdef"
)

func TestParseEvent(t *testing.T) {
	for _, c := range []struct {
		name, in, err string
		check         func(*Event) bool
	}{
		{"pull_request", `{"pull_request":{"number":4,"title":"T","body":null,"base":{"sha":"` + sha1 + `"},"head":{"sha":"` + sha2 + `","repo":null}}}`, "",
			func(e *Event) bool {
				return e.PullRequest.Number == 4 && e.PullRequest.Body == nil && e.PullRequest.Head.Repo == nil && e.PullRequest.Base.SHA == sha1
			}},
		{"push created", `{"ref":"refs/heads/x","before":"` + strings.Repeat("0", 40) + `","after":"` + sha2 + `","created":true,"forced":false}`, "",
			func(e *Event) bool { return e.Created && isZeroSHA(e.Before) && e.After == sha2 }},
		{"merge_group", `{"merge_group":{"base_sha":"` + sha1 + `","head_sha":"` + sha2 + `"}}`, "",
			func(e *Event) bool { return e.MergeGroup.BaseSHA == sha1 && e.MergeGroup.HeadSHA == sha2 }},
		{"sha256", `{"after":"` + strings.Repeat("ab", 32) + `"}`, "", func(e *Event) bool { return len(e.After) == 64 }},
		{"syntax", `{"pull_request": {"title": "Jane Doe" x}}`, "event payload is not valid JSON (at byte 39)", nil},
		{"type", `{"pull_request": {"title": "Jane Doe", "number": "Jane Doe"}}`, "event payload: pull_request.number has the wrong JSON type (want int)", nil},
		{"not an object", `"Jane Doe"`, "event payload: the payload has the wrong JSON type (want action.Event)", nil},
		{"empty", ``, "event payload is empty or truncated", nil},
		{"truncated", `{"pull_request": {"title": "Jane`, "event payload is empty or truncated", nil},
		{"trailing", `{} {"title": "Jane Doe"}`, "event payload: unexpected data after the JSON object", nil},
		{"bad before", `{"before": "Jane Doe"}`, "event payload: before is not a commit SHA", nil},
		{"bad head", `{"pull_request":{"head":{"sha":"Jane Doe"}}}`, "event payload: pull_request.head.sha is not a commit SHA", nil},
		{"bad merge_group", `{"merge_group":{"base_sha":"` + sha1 + `","head_sha":"main"}}`, "event payload: merge_group.head_sha is not a commit SHA", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ev, err := ParseEvent([]byte(c.in))
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if strings.Contains(err.Error(), "Jane") {
					t.Fatal("the error quotes the payload")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(ev) {
				t.Errorf("parsed %+v", ev)
			}
		})
	}
}

// msgRE is the vocabulary of ParseEvent's errors: fixed words, JSON field
// paths of the Event type, Go type names and byte offsets.
var msgRE = regexp.MustCompile(`^event payload[a-zA-Z0-9 _.()*:,\[\]-]*$`)

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"pull_request":{"number":1,"title":"x","body":"y","base":{"sha":"` + sha1 + `"},"head":{"sha":"` + sha2 + `"}}}`))
	f.Add([]byte(`{"before":"` + sha1 + `","after":"` + sha2 + `","forced":true}`))
	f.Add([]byte(`{"merge_group":{"base_sha":1}}`))
	f.Add([]byte(`{"pull_request":{"title":["Jane"]}}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ParseEvent(data)
		if err != nil {
			if !msgRE.MatchString(err.Error()) || len(err.Error()) > 160 {
				t.Fatalf("error outside the fixed vocabulary: %q", err)
			}
			return
		}
		for _, s := range []string{ev.Before, ev.After} {
			if s != "" && !isSHA(s) {
				t.Fatal("accepted a malformed SHA")
			}
		}
	})
}

// parseOutputFile reads GITHUB_OUTPUT as the runner does.
func parseOutputFile(s string) (map[string]string, bool) {
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	if lines[len(lines)-1] != "" {
		return nil, false
	}
	lines = lines[:len(lines)-1]
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			return nil, false
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		if i == len(lines) {
			return nil, false
		}
		out[name] = strings.Join(val, "\n")
	}
	return out, true
}

func TestFormatOutputs(t *testing.T) {
	in := []Output{{"findings", "3"}, {"sarif-file", "/tmp/a b/privscan.sarif"}, {"multi", "line 1\nline 2\nghadelimiter_x"}, {"empty", ""}}
	s, err := FormatOutputs(in)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := parseOutputFile(s)
	if !ok {
		t.Fatalf("unparsable:\n%s", s)
	}
	for _, o := range in {
		if got[o.Name] != o.Value {
			t.Errorf("%s = %q, want %q", o.Name, got[o.Name], o.Value)
		}
	}
	for _, bad := range []string{"", "a\nb", "a=b", "a<<b"} {
		if _, err := FormatOutputs([]Output{{bad, "v"}}); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
}

func FuzzFormatOutputs(f *testing.F) {
	f.Add("findings", "3")
	f.Add("sarif-file", "a\nb\r\n")
	f.Add("x", "ghadelimiter_")
	f.Fuzz(func(t *testing.T, name, value string) {
		s, err := FormatOutputs([]Output{{name, value}})
		if err != nil {
			return
		}
		got, ok := parseOutputFile(s)
		if !ok || len(got) != 1 || got[name] != value {
			t.Fatalf("round trip of %q=%q gave %v (ok %v)", name, value, got, ok)
		}
	})
}

func TestReadInputs(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	in, err := ReadInputs(env())
	if err != nil || !in.ScanPRText || !in.Annotations || in.FailOn != "" || in.Base != "" {
		t.Fatalf("defaults: %+v, %v", in, err)
	}
	in, err = ReadInputs(env(EnvScanPRText, "False", EnvAnnotations, "TRUE", EnvFailOn, " Error ", EnvBase, " "+sha1+" ", EnvHead, "main", EnvCategory, "privscan/pr"))
	if err != nil || in.ScanPRText || !in.Annotations || in.FailOn != "error" || in.Base != sha1 || in.Head != "main" || in.Category != "privscan/pr" {
		t.Fatalf("parsed: %+v, %v", in, err)
	}
	for _, c := range []struct{ k, v, want string }{
		{EnvFailOn, "loud", "input fail-on"},
		{EnvScanPRText, "yes", "input scan-pr-text: not a boolean"},
		{EnvAnnotations, "1", "input annotations: not a boolean"},
		{EnvBase, "-x", "starts with '-'"},
		{EnvHead, "a b", "whitespace"},
		{EnvBase, "a..b", "is a range"},
		{EnvHead, strings.Repeat("a", maxRevLen+1), "longer than"},
		{EnvSARIFFile, "a\nb", "input sarif-file"},
		{EnvCategory, "a\x1bb", "input category"},
	} {
		_, err := ReadInputs(env(c.k, c.v))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s=%q: err %v, want %q", c.k, c.v, err, c.want)
		}
		if engine.Hint(err) == "" {
			t.Errorf("%s=%q: no hint", c.k, c.v)
		}
		// The value itself is never repeated: inputs can hold
		// catalogued names.
		if v := strings.TrimSpace(c.v); err != nil && len(v) > 1 && strings.Contains(err.Error(), v) {
			t.Errorf("%s=%q: the error %q repeats the value", c.k, c.v, err)
		}
	}
}

func TestPRText(t *testing.T) {
	body := "b1\r\nb2"
	for _, c := range []struct {
		pr   PullRequest
		want string
	}{
		{PullRequest{Title: "T"}, "T\n"},
		{PullRequest{Title: "T\r\nx", Body: &body}, "T  x\n\nb1\r\nb2"},
		{PullRequest{Title: "T", Body: new(string)}, "T\n"},
	} {
		if got := prText(&c.pr); got != c.want {
			t.Errorf("prText(%q) = %q, want %q", c.pr.Title, got, c.want)
		}
	}
}

func TestShort(t *testing.T) {
	if got := short(strings.ToUpper(sha1)); got != sha1[:12] {
		t.Errorf("short = %q", got)
	}
	if got := short("feature/Jane-Doe"); got != "(revision)" {
		t.Errorf("short of a branch name = %q", got)
	}
}
