package pii

import (
	"bytes"
	"path"
)

// Configured identities and module metadata: an address that a file
// configures as the author of commits (git's user.email, a release
// tool's commit_author, a committer's environment variable) or that a
// Python package publishes as a module attribute (__email__) is the same
// metadata as a commit's author or a manifest's author_email, already
// read as credits. Both are read by their grammar: the key that names
// the identity, not a list of tools.

// gitIdentity reports, on its line, an address configured as the
// identity git records in commits: after "git config [--global]
// user.email" or "git -c user.email=" (a CI script, a Dockerfile, a
// workflow's run step), also written as a command's argument list
// ("git", "config", "user.email", "address"), as the value of a key that
// names a commit's author or committer (see identityKey): goreleaser's
// "commit_author:" inline, "committer: Name <address>" of a pull-request
// action, GIT_COMMITTER_EMAIL=…, commit_user_email: …, gitUserEmail = …,
// or as the second argument of a git tool's author setter (see
// gitAuthorSetter).
func gitIdentity(line []byte, start int) bool {
	head := bytes.TrimRight(line[:start], " \t\"'=`")
	if n := len(head); n > 1 && head[n-1] == ',' && (head[n-2] == '"' || head[n-2] == '\'') {
		// An argument list: the separator after the closing quote of
		// the item before.
		head = bytes.TrimRight(head[:n-1], "\"'")
	}
	if hasSuffixFold(head, "user.email") && !isWord(before(head, len(head)-10)) && wordIn(head[:len(head)-10], "git") {
		return true
	}
	if gitAuthorSetter(line, start) {
		return true
	}
	key, ok := lineKey(line[:start])
	return ok && identityKey(key)
}

// gitAuthorSetter reports an address as the second argument of a call
// that sets a commit's author or committer on a git tool: the receiver
// holds "git" as a word (gitTool.setAuthor, git.commit().setCommitter),
// the method is setAuthor or setCommitter, and its arguments are a quoted
// name and the quoted address ("Name", "address"). A setAuthor of another
// receiver (a post, a book) is not.
func gitAuthorSetter(line []byte, start int) bool {
	q := before(line, start)
	if q != '"' && q != '\'' {
		return false
	}
	head := bytes.TrimRight(line[:start-1], " \t")
	if len(head) == 0 || head[len(head)-1] != ',' {
		return false
	}
	head = bytes.TrimRight(head[:len(head)-1], " \t")
	if len(head) < 2 || head[len(head)-1] != q {
		return false
	}
	open := bytes.LastIndexByte(head[:len(head)-1], q)
	if open < 0 {
		return false
	}
	head = head[:open]
	if len(head) == 0 || head[len(head)-1] != '(' {
		return false
	}
	head = head[:len(head)-1]
	var method string
	switch {
	case bytes.HasSuffix(head, []byte(".setAuthor")):
		method = ".setAuthor"
	case bytes.HasSuffix(head, []byte(".setCommitter")):
		method = ".setCommitter"
	default:
		return false
	}
	head = head[:len(head)-len(method)]
	// The receiver: the chain of identifiers, member accesses and calls
	// before the method.
	r := len(head)
	for r > 0 && (isWord(head[r-1]) || head[r-1] == '.' || head[r-1] == '(' || head[r-1] == ')') {
		r--
	}
	return hasGitWord(head[r:])
}

// hasGitWord reports "git" as a word of an identifier in b (see
// identWords), not as the first half of a forge's name written in camel
// case (GitHub, GitLab: gitHubClient, GitLab_email).
func hasGitWord(b []byte) bool {
	git := false
	found := identWords(b, func(w []byte) bool {
		if git && !equalFold(w, "hub") && !equalFold(w, "lab") {
			return true
		}
		git = equalFold(w, "git")
		return false
	})
	return found || git
}

// identWords reports whether fn holds for a word of an identifier in b:
// identifiers split at non-word bytes, at '_', where a lower case letter
// or a digit meets an upper case one (gitUserEmail, git_genericEmail,
// computeHa1), and before the last capital of a run of capitals followed
// by a lower case letter (GITUserEmail).
func identWords(b []byte, fn func(w []byte) bool) bool {
	for i := 0; i < len(b); {
		if !isWord(b[i]) || b[i] == '_' {
			i++
			continue
		}
		j := i + 1
		for j < len(b) && isWord(b[j]) && b[j] != '_' && !(isUpper(b[j]) && (isLower(b[j-1]) || isDigit(b[j-1]) || (isUpper(b[j-1]) && isLower(at(b, j+1))))) {
			j++
		}
		if fn(b[i:j]) {
			return true
		}
		i = j
	}
	return false
}

// wordIn reports whether b holds w (lower case) as a whole word.
func wordIn(b []byte, w string) bool {
	for i := 0; i+len(w) <= len(b); i++ {
		if equalFold(b[i:i+len(w)], w) && !isWord(before(b, i)) && !isWord(at(b, i+len(w))) {
			return true
		}
	}
	return false
}

// lineKey returns the key a line assigns before its value: "key: …",
// "key = …", "KEY=…", "export KEY=…", "ENV KEY …" is not read; a YAML
// list item's "- key: …" and a quoted key ("key": …) are.
func lineKey(head []byte) ([]byte, bool) {
	t := bytes.TrimLeft(head, " \t")
	t = bytes.TrimPrefix(t, []byte("- "))
	t = bytes.TrimPrefix(t, []byte("export "))
	t = bytes.TrimLeft(t, " \t\"'")
	k := 0
	for k < len(t) && (isWord(t[k]) || t[k] == '-' || t[k] == '.') {
		k++
	}
	if k == 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(t[k:], " \t\"'")
	if len(rest) == 0 || (rest[0] != ':' && rest[0] != '=') || at(rest, 1) == '=' {
		return nil, false
	}
	return t[:k], true
}

// identityKey reports a key that names the identity git records for a
// commit: its words (split at '_', '-', '.' and where a lower case
// letter or a digit meets a capital, see identWords) hold "committer", or
// hold "commit" or "git" together with "author", "email" or "user"
// (commit_author, commit_user_email, GIT_COMMITTER_EMAIL, git_email,
// git-user-email, gitUserEmail, git_genericEmail). "email",
// "author_email", "userEmail" alone, "gitlab_email" and "gitHubEmail"
// are not such keys (author keys are read as credits elsewhere).
func identityKey(key []byte) bool {
	var git, committer, who bool
	identWords(key, func(w []byte) bool {
		switch {
		case equalFold(w, "committer"):
			committer = true
		case equalFold(w, "commit"):
			git = true
		case equalFold(w, "author"), equalFold(w, "email"), equalFold(w, "user"):
			who = true
		}
		return false
	})
	return committer || ((git || hasGitWord(key)) && who)
}

// pythonModule reports a Python source file outside test, fixture and
// example directories.
func pythonModule(p string) bool {
	return p != "" && path.Ext(p) == ".py" && !inFixtureDir(p)
}

// dunderEmails are the module attributes (PEP 8's "module level
// dunders", the convention of __author__ and __version__) that publish a
// package's contact address.
var dunderEmails = []string{"__email__", "__author_email__", "__maintainer_email__", "__contact__"}

// dunderEmail reports an address assigned at a module's top level to a
// metadata dunder ("__email__ = \"address\"", "__email__: str = …"): the
// module-attribute form of a package's author_email, published with the
// package as __author__ is. Only at the top level (no indentation) and
// only an assignment: a test that asserts the attribute's value
// ("assert \"address\" == pkg.__email__") is a fixture, and keeps the
// warning.
func dunderEmail(line []byte, start int) bool {
	head := line[:start]
	for _, d := range dunderEmails {
		if !bytes.HasPrefix(head, []byte(d)) {
			continue
		}
		rest := bytes.TrimLeft(head[len(d):], " \t")
		if len(rest) > 0 && rest[0] == ':' {
			// An annotation: "__email__: str = …".
			e := bytes.IndexByte(rest, '=')
			if e < 0 {
				return false
			}
			rest = rest[e:]
		}
		return len(rest) > 0 && rest[0] == '=' && at(rest, 1) != '='
	}
	return false
}

// rubyBuildFile reports a file that builds a Ruby package: a Rakefile, a
// Thorfile, a gemspec, a Rake or Thor task file, outside test, fixture
// and example directories. These are where a gem's specification and the
// constants it reads are written.
func rubyBuildFile(p string) bool {
	if p == "" || inFixtureDir(p) {
		return false
	}
	base := path.Base(p)
	switch base {
	case "Rakefile", "rakefile", "Rakefile.rb", "Thorfile", "thorfile":
		return true
	}
	switch path.Ext(base) {
	case ".gemspec", ".rake", ".thor":
		return true
	}
	return false
}

// gemConstantPrefixes are the words that may come before EMAIL in the
// name of a gem specification's credit constant (GEM_EMAIL,
// AUTHOR_EMAIL, SPEC_AUTHOR_EMAIL): the package, its spec, its author or
// maintainer. A constant that names another role (SUPPORT_EMAIL,
// ADMIN_EMAIL, NOTIFY_EMAIL) is not a credit field.
var gemConstantPrefixes = []string{"GEM", "SPEC", "PKG", "PACKAGE", "AUTHOR", "AUTHORS", "MAINTAINER", "MAINTAINERS", "DEVELOPER", "DEVELOPERS"}

// gemCreditConstant reports whether name (a Ruby constant in capitals)
// names a gem specification's credit field: EMAIL or EMAILS after any
// number of words from gemConstantPrefixes, or AUTHOR(S), MAINTAINER(S)
// alone (the value "Name <address>").
func gemCreditConstant(name []byte) bool {
	words := bytes.Split(name, []byte("_"))
	last := string(words[len(words)-1])
	switch {
	case last == "EMAIL" || last == "EMAILS":
	case len(words) == 1 && (last == "AUTHOR" || last == "AUTHORS" || last == "MAINTAINER" || last == "MAINTAINERS"):
		return true
	default:
		return false
	}
	for _, w := range words[:len(words)-1] {
		ok := false
		for _, p := range gemConstantPrefixes {
			if string(w) == p {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// gemEmailConstant reports an address in the string literal assigned at
// a Ruby build file's top level to a gem credit constant (EMAIL =
// "address" beside AUTHOR = "Name", which the Gem::Specification block
// then passes to s.email): the constant form of a gemspec's email, a
// published credit. Only at the top level (no indentation), only an
// assignment (not ==), and only the first string literal after it (or
// an array's first element): "EMAIL = ENV['X'] || 'address'" keeps the
// warning.
func gemEmailConstant(line []byte, start int) bool {
	k := 0
	for k < start && ((line[k] >= 'A' && line[k] <= 'Z') || (k > 0 && (line[k] == '_' || isDigit(line[k])))) {
		k++
	}
	if k == 0 || !gemCreditConstant(line[:k]) {
		return false
	}
	rest := bytes.TrimLeft(line[k:start], " \t")
	if len(rest) < 2 || rest[0] != '=' || rest[1] == '=' || rest[1] == '~' {
		return false
	}
	rest = bytes.TrimLeft(rest[1:], " \t")
	if len(rest) > 0 && rest[0] == '[' {
		rest = bytes.TrimLeft(rest[1:], " \t")
	}
	if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
		return false
	}
	return bytes.IndexByte(rest[1:], rest[0]) < 0
}

// commentedGemEmail reports an address in a commented-out gem
// specification's email assignment in a Ruby build file: "# gem.email =
// "address"", "#  s.email = %w[address …]", "# spec.email = ["address",
// …]" (a Jeweler or Gem::Specification block kept as comments). It is the
// same credit as the live assignment: the gem's published author
// address. The comment holds only that assignment: one or more "#",
// spaces, a block variable, ".email", a single "=", then a string
// literal, an array or a %w list, and the address inside the value (no
// other "=", "#", "(" or "+" between the assignment and the address).
// Any other comment ("# ask address", "# email = address") keeps the
// warning.
func commentedGemEmail(line []byte, start int) bool {
	t := bytes.TrimLeft(line[:start], " \t")
	if len(t) == 0 || t[0] != '#' {
		return false
	}
	t = bytes.TrimLeft(bytes.TrimLeft(t, "#"), " \t")
	v, field := fieldAssignment(t)
	if v == nil || (field != "email" && field != "emails") {
		return false
	}
	rest := t[len(v)+1+len(field):]
	rest = bytes.TrimLeft(rest, " \t")
	rest = bytes.TrimLeft(rest[1:], " \t") // past the "="
	switch {
	case bytes.HasPrefix(rest, []byte("%w[")), bytes.HasPrefix(rest, []byte("%w(")), bytes.HasPrefix(rest, []byte("%W[")), bytes.HasPrefix(rest, []byte("%W(")):
		rest = rest[3:]
	case len(rest) > 0 && (rest[0] == '"' || rest[0] == '\'' || rest[0] == '['):
		rest = rest[1:]
	default:
		return false
	}
	return !bytes.ContainsAny(rest, "=#(+|&")
}
