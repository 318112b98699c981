package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound24Rules: the shapes held-out round 24 showed, and near misses
// that keep their warning. Synthetic names and hosts only; each fragment
// is the added lines alone, numbered from line 1 of the file.
func TestRound24Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// SSH algorithm names read by the name-list grammar.
		{"name-list item", "lib/transport/algos.rb", finding.KindDiff, "  x = \"aes128-ctr,rijndael-cbc@cipherlab.io,aes256-ctr\"", []string{"note"}},
		{"name-list, last item", "test/test_algos.rb", finding.KindDiff, "  assert_equal opts || \"aes128-cbc,3des-cbc,twofish-cbc@cipherlab.io\", got", []string{"note"}},
		{"word list item", "test/test_algos.rb", finding.KindDiff, "  assert_equal %w(aes256-cbc aes128-cbc twofish-cbc@cipherlab.io none), got", []string{"note"}},
		{"word list with modifiers", "test/test_algos.rb", finding.KindDiff, "  algorithms(encryption: %w[twofish-cbc@cipherlab.io -blowfish-* -*-cbc -none])", []string{"note"}},
		{"word list continued on the next lines", "lib/transport/algos.rb", finding.KindDiff, "  enc: %w(aes128-cbc 3des-cbc\n    aes192-cbc aes256-cbc\n    twofish-cbc@cipherlab.io\n    idea-cbc none)", []string{"note"}},
		{"hash key with a cipher value", "lib/transport/factory.rb", finding.KindDiff, "    \"twofish-cbc@cipherlab.io\" => \"twofish-256-cbc\",", []string{"note"}},
		{"quoted use of a listed name in an ssh file", "test/ssh/test_factory.rb", finding.KindDiff, "  NAMES = %w[aes128-ctr twofish-cbc@cipherlab.io]\n  assert_equal 16, factory.key_len(\"twofish-cbc@cipherlab.io\")", []string{"note", "note"}},
		{"markdown table first cell in an ssh readme", "README.md", finding.KindDiff, "Ciphers supported by the SSH transport:\n| twofish-cbc@cipherlab.io | deprecated |", []string{"note"}},
		{"nested hash keyed by algorithm names", "test/transport/test_stream.rb", finding.KindDiff, "      'twofish-cbc@cipherlab.io' => {\n        'hmac-sha2-256' => {", []string{"note"}},
		// Recall: a list of mailboxes (siblings are addresses), a name-list
		// with spaces, a word list of words, an address with a dotted
		// local part, a hash whose value is not an algorithm name, a
		// quoted use with no list in the fragment, a table outside SSH.
		{"list of mailboxes", "config/alerts.cfg", finding.KindDiff, "to = ada@example-mail.org,bo@example-mail.org", []string{"warning", "warning"}},
		{"mailboxes with a space", "notify.cfg", finding.KindDiff, "to: ada@example-mail.org, bo-smith", []string{"warning"}},
		{"word list of words", "lib/users.rb", finding.KindDiff, "  USERS = %w[alice bob ada@example-mail.org]", []string{"warning"}},
		{"dotted local part among algorithms", "test/test_algos.rb", finding.KindDiff, "  %w(aes128-ctr ada.lovelace@example-mail.org aes256-ctr)", []string{"warning"}},
		{"hash value not an algorithm", "lib/users.rb", finding.KindDiff, "    \"ada@example-mail.org\" => \"Ada Example\",", []string{"warning"}},
		{"nested hash keyed by words", "lib/users.rb", finding.KindDiff, "      'ada@example-mail.org' => {\n        'name' => 'Ada',", []string{"warning"}},
		{"quoted use without a list", "test/transport/test_factory.rb", finding.KindDiff, "  assert_equal 16, factory.key_len(\"ada@example-mail.org\")", []string{"warning"}},
		{"markdown table outside ssh", "README.md", finding.KindDiff, "Team:\n| ada@example-mail.org | lead |", []string{"warning"}},
		// A gem specification built on a method's parameter, its opener
		// unchanged context: the authors and email lists side by side,
		// or a gem-only field before the email.
		{"gem authors and email lists", "Rakefile", finding.KindDiff, "  s.authors = [\"Ada Example\", \"Bo Sample\"]\n  s.email = ['ada.example@mailhost.io', 'bo.sample@mailhost.io']", []string{"note", "note"}},
		{"gem email list before authors", "tasks/gem.rake", finding.KindDiff, "  s.email = ['ada.example@mailhost.io']\n  s.authors = ['Ada Example']", []string{"note"}},
		{"gem-only field before the email", "Rakefile", finding.KindDiff, "  s.summary = \"A demo console\"\n  s.email = 'ada.example@mailhost.io'", []string{"note"}},
		// Recall: an email string beside a name (a user record), the
		// pair on different variables, not adjacent, another language.
		{"user record name and email", "Rakefile", finding.KindDiff, "  u.name = 'Ada Example'\n  u.email = 'ada.example@mailhost.io'", []string{"warning"}},
		{"authors and email on different variables", "Rakefile", finding.KindDiff, "  s.authors = ['Ada Example']\n  u.email = ['ada.example@mailhost.io']", []string{"warning"}},
		{"authors and email not adjacent", "Rakefile", finding.KindDiff, "  s.authors = ['Ada Example']\n\n  s.email = ['ada.example@mailhost.io']", []string{"warning"}},
		{"gem-only field before another block", "Rakefile", finding.KindDiff, "  s.summary = \"x\"\nend\n  s.email = 'ada.example@mailhost.io'", []string{"warning"}},
		{"pair in a python file", "setup_demo.py", finding.KindDiff, "  s.authors = ['Ada Example']\n  s.email = ['ada.example@mailhost.io']", []string{"warning"}},
		// A credit wrapped before "by": the work on one comment line, the
		// person on the next.
		{"original implementation by, wrapped", "lib/agent/bridge.rb", finding.KindDiff, "  # This code is a modified version of the original implementation\n  # by Ada Exämple (ada.example@mailhost.io). It is used by permission.", []string{"note"}},
		{"based on URL, by on the next line", "cmd/demo/main.go", finding.KindDiff, "// Originally based on https://example.org/demo/upstream\n// by Ada Example <ada.example@mailhost.io>", []string{"note"}},
		// Recall: another word ends the previous line, the lines not
		// adjacent, not comments, a lower-case phrase, words after the
		// address, a fixture.
		{"by after another word", "lib/agent/bridge.rb", finding.KindDiff, "  # Please send questions\n  # by Ada Example (ada.example@mailhost.io)", []string{"warning"}},
		{"by not adjacent", "lib/agent/bridge.rb", finding.KindDiff, "  # the original implementation\n\n  # by Ada Example (ada.example@mailhost.io)", []string{"warning"}},
		{"by in code, not a comment", "lib/agent/bridge.rb", finding.KindDiff, "  x = implementation\n  by Ada Example (ada.example@mailhost.io)", []string{"warning"}},
		{"based on a phrase, not a URL", "cmd/demo/main.go", finding.KindDiff, "// based on feedback\n// by Ada Example (ada.example@mailhost.io)", []string{"warning"}},
		{"based on URL, a fixture", "test/fixtures/main.go", finding.KindDiff, "// Originally based on https://example.org/demo/upstream\n// by Ada Example <ada.example@mailhost.io>", []string{"warning"}},
		// A gem's signing certificate built for its address.
		{"gem cert --build in a Rakefile", "Rakefile", finding.KindDiff, "    sh \"gem cert --build ada.example@mailhost.io --days 365\"", []string{"note"}},
		{"gem cert --build in a readme", "README.rdoc", finding.KindDiff, "     gem cert --build ada.example@mailhost.io --private-key path/key.pem", []string{"note"}},
		// Recall: another gem command's argument, another tool's --build.
		{"gem owner --add", "Rakefile", finding.KindDiff, "    sh \"gem owner demo --add ada.example@mailhost.io\"", []string{"warning"}},
		{"another tool's --build", "Rakefile", finding.KindDiff, "    sh \"make --build ada.example@mailhost.io\"", []string{"warning"}},
		// A package.json inlined into a JavaScript bundle.
		{"npm contributors inlined in a bundle", "demo.js", finding.KindDiff, "module.exports={\n  \"name\": \"demo\",\n  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io>\",\n    \"Bo Sample <bo.sample@mailhost.io> (https://bo.example.org)\"\n  ],\n  \"version\": \"1.0.0\"", []string{"note", "note"}},
		// Recall: no version beside the array, a fixture.
		{"npm contributors without a version", "demo.js", finding.KindDiff, "module.exports={\n  \"name\": \"demo\",\n  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io>\"\n  ],", []string{"warning"}},
		{"npm contributors inlined in a fixture", "test/fixtures/demo.js", finding.KindDiff, "module.exports={\n  \"name\": \"demo\",\n  \"contributors\": [\n    \"Ada Example <ada.example@mailhost.io>\"\n  ],\n  \"version\": \"1.0.0\"", []string{"warning"}},
		// An SSH login passed with a remote path.
		{"ssh publisher login and path", "Rakefile", finding.KindDiff, "  Rake::SshDirPublisher.new(\n    \"ada@web.example-host.io\",\n    \"/var/www/demo\",\n    \"doc\" ).upload", []string{"note"}},
		// Recall: a mailer with an attachment path, the path not next,
		// a relative path.
		{"mailer with a path", "tasks/mail.rb", finding.KindDiff, "  Mailer.send(\"ada.example@mailhost.io\",\n    \"/tmp/report.pdf\")", []string{"warning"}},
		{"ssh call, relative path", "Rakefile", finding.KindDiff, "  SshPublisher.new(\"ada@web.example-host.io\", \"doc/html\")", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}
