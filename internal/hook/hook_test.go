package hook

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCommits(t *testing.T) {
	type c = Commit
	tests := []struct {
		cmd  string
		want []Commit
	}{
		{"ls -la", nil},
		{"git status && git diff", nil},
		{"echo git commit", nil},
		{"git log --grep commit", nil},
		{"grep -r 'git commit' .", nil},
		{"git commitx", nil},
		{"git commit", []c{{Dir: "/w"}}},
		{`git com"mit" -m x`, []c{{Dir: "/w", Messages: []string{"x"}}}},
		{`git c\ommit -m y`, []c{{Dir: "/w", Messages: []string{"y"}}}},
		{"git commit -m 'Fix it'", []c{{Dir: "/w", Messages: []string{"Fix it"}}}},
		{`git commit -am "Fix it"`, []c{{Dir: "/w", All: true, Messages: []string{"Fix it"}}}},
		{"git commit -a -m x -m y", []c{{Dir: "/w", All: true, Messages: []string{"x", "y"}}}},
		{"git commit -mshort", []c{{Dir: "/w", Messages: []string{"short"}}}},
		{"git commit --message=long --all", []c{{Dir: "/w", All: true, Messages: []string{"long"}}}},
		{"git commit --message long", []c{{Dir: "/w", Messages: []string{"long"}}}},
		{"git -C sub commit -q", []c{{Dir: "/w/sub"}}},
		{"git -C /abs -C rel commit", []c{{Dir: "/abs/rel"}}},
		{"git -c user.name=X --no-pager commit", []c{{Dir: "/w"}}},
		{"git --work-tree=/t commit", []c{{Dir: "/t"}}},
		{"git --git-dir=../o/.git commit", []c{{Dir: "/o"}}},
		{"git --git-dir /r/.git --work-tree=/t commit", []c{{Dir: "/t"}}},
		{"git --git-dir=/srv/bare.git commit", []c{{Dir: "/w"}}},
		{"GIT_DIR=/r/.git git commit", []c{{Dir: "/r"}}},
		{"env -i GIT_DIR=/r/.git GIT_WORK_TREE=sub git commit", []c{{Dir: "/w/sub"}}},
		{"GIT_DIR=/r/.git true && git commit", []c{{Dir: "/w"}}},
		{"git add . && git commit -m wip", []c{{Dir: "/w", Messages: []string{"wip"}, Adds: []Add{{Dir: "/w", Paths: []string{"."}}}}}},
		{"git add -A; git commit -m a; git push", []c{{Dir: "/w", Messages: []string{"a"}, Adds: []Add{{Dir: "/w", All: true}}}}},
		{"git add fixture.go src/*.go && git commit -m f", []c{{Dir: "/w", Messages: []string{"f"}, Adds: []Add{{Dir: "/w", Paths: []string{"fixture.go", "src/*.go"}}}}}},
		{"git add -u && git -C sub stage --all -- x && git commit -m u", []c{{Dir: "/w", Messages: []string{"u"}, Adds: []Add{{Dir: "/w", Update: true}, {Dir: "/w/sub", All: true, Paths: []string{"x"}}}}}},
		{"cd repo && git add -A && git commit -m r", []c{{Dir: "/w/repo", Messages: []string{"r"}, Adds: []Add{{Dir: "/w/repo", All: true}}}}},
		{"git commit -m one && git add b && git commit -m two", []c{{Dir: "/w", Messages: []string{"one"}}, {Dir: "/w", Messages: []string{"two"}, Adds: []Add{{Dir: "/w", Paths: []string{"b"}}}}}},
		{"make test || git commit -m b", []c{{Dir: "/w", Messages: []string{"b"}}}},
		{"git add .\ngit commit -m c", []c{{Dir: "/w", Messages: []string{"c"}, Adds: []Add{{Dir: "/w", Paths: []string{"."}}}}}},
		{"GIT_AUTHOR_NAME=x FOO=1 git commit", []c{{Dir: "/w"}}},
		{"env -u X A=1 git commit", []c{{Dir: "/w"}}},
		{"command git commit", []c{{Dir: "/w"}}},
		{"nice -n 10 git commit", []c{{Dir: "/w"}}},
		{"sudo -u dev git commit", []c{{Dir: "/w"}}},
		{"timeout 30 git commit -m t", []c{{Dir: "/w", Messages: []string{"t"}}}},
		{"timeout -k 5 --signal=TERM 30s git commit", []c{{Dir: "/w"}}},
		{"nohup time -p git commit", []c{{Dir: "/w"}}},
		{"stdbuf -o L git commit", []c{{Dir: "/w"}}},
		{"timeout 30", nil},
		{"coproc git commit -m co", []c{{Dir: "/w", Messages: []string{"co"}}}},
		{`git commit -m $'line one\nline two\t\x41\101\'q\z'`, []c{{Dir: "/w", Messages: []string{"line one\nline two\tAA'q\\z"}}}},
		{`git $'com\x6dit' -m x`, []c{{Dir: "/w", Messages: []string{"x"}}}},
		{`git commit -m $'unterminated`, []c{{Dir: "/w", Messages: []string{"unterminated"}}}},
		{"/usr/bin/git commit", []c{{Dir: "/w"}}},
		{"cd repo && git commit -m d", []c{{Dir: "/w/repo", Messages: []string{"d"}}}},
		{"cd $X && git commit", []c{{Dir: "/w", DirUnknown: true}}},
		{"(cd a && git commit)", []c{{Dir: "/w/a"}}},
		{"if git commit -m e; then echo ok; fi", []c{{Dir: "/w", Messages: []string{"e"}}}},
		{"git commit file.go -m f", []c{{Dir: "/w", Paths: []string{"file.go"}, Messages: []string{"f"}}}},
		{"git commit -i a.go -- b.go", []c{{Dir: "/w", Include: true, Paths: []string{"a.go", "b.go"}}}},
		{"git commit -F msg.txt", []c{{Dir: "/w", MessageFile: "msg.txt"}}},
		{"git commit --file=- <<'EOF'\nsubject\n\nbody\nEOF\necho done", []c{{Dir: "/w", MessageFile: "-", Stdin: "subject\n\nbody\n"}}},
		{"git commit -F - <<< 'one line'", []c{{Dir: "/w", MessageFile: "-", Stdin: "one line"}}},
		{"git commit -m x >/dev/null 2>&1", []c{{Dir: "/w", Messages: []string{"x"}}}},
		{"git commit -m x 2>err.log", []c{{Dir: "/w", Messages: []string{"x"}}}},
		{"git commit -m x &> out", []c{{Dir: "/w", Messages: []string{"x"}}}},
		{"git commit -m x # git commit in a comment", []c{{Dir: "/w", Messages: []string{"x"}}}},
		{`git commit -m "a \"quoted\" word"`, []c{{Dir: "/w", Messages: []string{`a "quoted" word`}}}},
		{"git commit -m it\\'s", []c{{Dir: "/w", Messages: []string{"it's"}}}},
		{"git commit --amend --no-edit", []c{{Dir: "/w"}}},
		{"git commit -S -m s", []c{{Dir: "/w", Messages: []string{"s"}}}},
		{"git commit -qvm v", []c{{Dir: "/w", Messages: []string{"v"}}}},
		{"git -C a commit && git -C b commit", []c{{Dir: "/w/a"}, {Dir: "/w/b"}}},
		{"echo $(git commit -m inner)", nil},
		{"bash -c 'cd x && git commit -m in'", []c{{Dir: "/w/x", Messages: []string{"in"}}}},
		{"sh -ec \"git commit\"", []c{{Dir: "/w"}}},
	}
	for _, tc := range tests {
		got := Commits(tc.cmd, "/w")
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Commits(%q)\n got %+v\nwant %+v", tc.cmd, got, tc.want)
		}
	}
}

func TestFindGH(t *testing.T) {
	tests := []struct {
		cmd  string
		want []GHText
	}{
		{"gh pr list", nil},
		{"gh pr view 3 --comments", nil},
		{"gh repo create x", nil},
		{`gh pr create --title "Add totals" --body "One pass."`, []GHText{{Dir: "/w", Title: "Add totals", Body: "One pass."}}},
		{"gh pr create -t T -b B", []GHText{{Dir: "/w", Title: "T", Body: "B"}}},
		{"gh pr create --title=T --body-file=notes.md", []GHText{{Dir: "/w", Title: "T", BodyFile: "notes.md"}}},
		{"cd sub && gh issue comment 7 -F - <<'EOF'\nbody text\nEOF\n", []GHText{{Dir: "/w/sub", BodyFile: "-", Stdin: "body text\n"}}},
		{"gh issue edit 7 --title New", []GHText{{Dir: "/w", Title: "New"}}},
		{"gh pr review 3 --approve -b LGTM", []GHText{{Dir: "/w", Body: "LGTM"}}},
		{"gh pr edit 3 --body x", []GHText{{Dir: "/w", Body: "x"}}},
		{"gh pr merge 3 --squash --subject S --body B", []GHText{{Dir: "/w", Title: "S", Body: "B"}}},
		{"gh pr merge 3 -s -t S -b B", []GHText{{Dir: "/w", Title: "S", Body: "B"}}},
		{"gh pr merge 3 --rebase", []GHText{{Dir: "/w"}}},
		{"git push && gh pr create --fill", []GHText{{Dir: "/w"}}},
	}
	for _, tc := range tests {
		got := Find(tc.cmd, "/w").GH
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Find(%q).GH\n got %+v\nwant %+v", tc.cmd, got, tc.want)
		}
	}
}

func TestHeredocMessage(t *testing.T) {
	cmd := "git commit -m \"$(cat <<'EOF'\nAdd login (for \"Jane\")\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\" && git push"
	got := Commits(cmd, "/w")
	if len(got) != 1 {
		t.Fatalf("commits: %+v", got)
	}
	want := "Add login (for \"Jane\")\n\nCo-Authored-By: Claude <noreply@anthropic.com>"
	if m := got[0].Message(); m != want {
		t.Fatalf("message %q, want %q", m, want)
	}
	// Paragraphs of several -m are joined by a blank line.
	if m := Commits("git commit -m a -m b", "/w")[0].Message(); m != "a\n\nb" {
		t.Fatalf("message %q", m)
	}
	// Not a cat here-document: kept as written.
	if m := Commits(`git commit -m "$(date)"`, "/w")[0].Message(); m != "$(date)" {
		t.Fatalf("message %q", m)
	}
}

func TestParse(t *testing.T) {
	p, err := Parse(strings.NewReader(`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit","description":"d"},"extra":1}`))
	if err != nil || p.ToolName != "Bash" || p.ToolInput.Command != "git commit" || p.Cwd != "/w" {
		t.Fatalf("Parse: %+v, %v", p, err)
	}
	const secret = "SECRET-PAYLOAD-TEXT"
	for _, in := range []string{
		"", "not json " + secret, `{"tool_input": "` + secret + `"}`, `["` + secret + `"]`,
		`{"tool_name": 5}`, `{"cwd": "` + secret, strings.Repeat(" ", MaxPayload+1),
	} {
		_, err := Parse(strings.NewReader(in))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%.40q): %v, want ErrMalformed", in, err)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("error quotes the payload: %v", err)
		}
	}
}

func FuzzCommits(f *testing.F) {
	for _, s := range []string{
		"git commit -am x", "cd a && git -C b commit -- p", "git commit -F - <<EOF\nx\nEOF\n",
		"echo \"$(cat <<'E'\n)\nE\n)\"", "a 2>&1 | b &> c; d <<<e", "'unterminated", "\"$(", "`x", "git commit -m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs := Commits(s, "/w")
		for _, c := range cs {
			if c.Dir == "" {
				t.Fatalf("empty Dir for %q", s)
			}
			_ = c.Message()
		}
		// Anything without the word commit, once shell quotes, escapes
		// and line continuations are taken out (git com"mit" is git
		// commit), has no commit.
		// ($'…' strings decode escapes, so \x6d spells m: not checked.)
		plain := strings.NewReplacer("\\\n", "", "\\", "", `"`, "", "'", "").Replace(s)
		if !strings.Contains(plain, "commit") && len(cs) > 0 && !strings.Contains(s, "$'") {
			t.Fatalf("commit found in %q", s)
		}
	})
}

func FuzzParse(f *testing.F) {
	f.Add(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`)
	f.Add(`{"tool_input":{"command":7}}`)
	f.Add(`nope`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(strings.NewReader(s))
		if err == nil && p == nil {
			t.Fatal("nil payload without error")
		}
		if err != nil && len(s) > 8 && strings.Contains(err.Error(), s) {
			t.Fatalf("error quotes the input: %v", err)
		}
	})
}
