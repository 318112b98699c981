package pii

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// kind identifies one built-in detector. Detect dispatches on it with a
// switch (not through function values) so that the per-line callbacks stay
// on the stack.
type kind uint8

const (
	kindEmail kind = iota
	kindPhone
	kindCard
	kindIBAN
	kindSSN
	kindIP
	numKinds
)

// spec is the immutable description of one detector.
type spec struct {
	name        string
	ruleID      string
	severity    finding.Severity
	description string
	samples     *samples
}

// specs is indexed by kind. It is never modified.
var specs = [numKinds]spec{
	kindEmail: {"email", "pii/email", finding.SeverityWarning,
		"An email address, which is personal data when it identifies a person.", &emailSamples},
	kindPhone: {"phone", "pii/phone", finding.SeverityWarning,
		"A telephone number in international (E.164) or unambiguous North American format.", &phoneSamples},
	kindCard: {"credit-card", "pii/credit-card", finding.SeverityError,
		"A payment card number with a valid issuer prefix, length and Luhn check digit.", &cardSamples},
	kindIBAN: {"iban", "pii/iban", finding.SeverityError,
		"An International Bank Account Number with a valid country length and mod-97 checksum.", &ibanSamples},
	kindSSN: {"us-ssn", "pii/us-ssn", finding.SeverityError,
		"A United States Social Security number in AAA-GG-SSSS form that the SSA could issue.", &ssnSamples},
	kindIP: {"ip-address", "pii/ip-address", finding.SeverityNote,
		"A public IPv4 or IPv6 address, which can identify a person or a private host.", &ipSamples},
}

// sample is one line of a detector's sample table. For a true positive,
// Want is the exact substring the detector must report; for a false
// positive it is empty.
type sample struct {
	Line string
	Want string
}

// samples are a detector's true-positive lines (each must produce exactly
// one match, spanning Want) and false-positive lines (each must produce
// none). The tests check every entry.
type samples struct {
	TP []sample
	FP []string
}

// Config selects and tunes the built-in detectors.
type Config struct {
	// Enabled turns detectors on or off by name (see Names). A nil map, and
	// any name the map does not mention, means on; only an explicit false
	// turns a detector off. Unknown names are an error.
	Enabled map[string]bool
	// SkipTestCards makes the credit-card detector ignore well-known
	// payment-processor test numbers such as 4111111111111111. By default
	// they are reported like any other card number.
	SkipTestCards bool
}

// Detector runs the enabled built-in PII detectors. It implements
// scanner.Detector, is immutable after New, and is safe for concurrent use.
type Detector struct {
	on            [numKinds]bool
	skipTestCards bool
}

var _ scanner.Detector = (*Detector)(nil)

// New returns a Detector for cfg. It fails only when cfg.Enabled names a
// detector that does not exist.
func New(cfg Config) (*Detector, error) {
	d := &Detector{skipTestCards: cfg.SkipTestCards}
	for k := range d.on {
		d.on[k] = true
	}
	names := make([]string, 0, len(cfg.Enabled))
	for name := range cfg.Enabled {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		k, ok := lookup(name)
		if !ok {
			return nil, fmt.Errorf("pii: unknown detector %q (want one of %s)", name, strings.Join(Names(), ", "))
		}
		d.on[k] = cfg.Enabled[name]
	}
	return d, nil
}

// Names lists the built-in detectors in a fixed order.
func Names() []string {
	out := make([]string, numKinds)
	for k := range specs {
		out[k] = specs[k].name
	}
	return out
}

// DefaultSeverity is a detector's severity before any configured override.
// It returns 0 (an invalid severity) for an unknown name.
func DefaultSeverity(name string) finding.Severity {
	if k, ok := lookup(name); ok {
		return specs[k].severity
	}
	return 0
}

func lookup(name string) (kind, bool) {
	for k := range specs {
		if specs[k].name == name {
			return kind(k), true
		}
	}
	return 0, false
}

// Name implements scanner.Detector.
func (d *Detector) Name() string { return finding.SourcePII }

// Detect implements scanner.Detector: it reports, line by line, the byte
// span of every recognised identifier.
//
// A diff fragment's Context lines (the lines of the new file before each
// run of added lines) are read in their place among the added lines, so
// that a rule keyed on a line above (a list's key, a section's heading,
// an @author line) reads an added line the same whether that line above
// came in the same change or an earlier one. Nothing is reported on them.
func (d *Detector) Detect(f *scanner.Fragment, emit func(scanner.Match)) {
	if !d.mayMatch(f.Lines) {
		return // no line holds the bytes any enabled detector needs
	}
	if len(f.Context) == 0 {
		d.detect(f, nil, emit)
		return
	}
	g := *f
	g.Lines = make([]scanner.Line, 0, len(f.Lines)+len(f.Context))
	// of[i] is the index in f.Lines of g.Lines[i], or -1 for context.
	of := make([]int, 0, cap(g.Lines))
	for a, c := 0, 0; a < len(f.Lines) || c < len(f.Context); {
		if c < len(f.Context) && (a == len(f.Lines) || f.Context[c].Number < f.Lines[a].Number) {
			g.Lines = append(g.Lines, f.Context[c])
			of = append(of, -1)
			c++
			continue
		}
		g.Lines = append(g.Lines, f.Lines[a])
		of = append(of, a)
		a++
	}
	d.detect(&g, of, func(m scanner.Match) {
		m.Line = of[m.Line]
		emit(m)
	})
}

// mayMatch reports whether any of lines holds the bytes an enabled
// detector needs (lineStats.mayHold), the condition for every match: a
// fragment without such a line is not read at all, its context included.
func (d *Detector) mayMatch(lines []scanner.Line) bool {
	for i := range lines {
		st := scanLine(lines[i].Text)
		for k := kind(0); k < numKinds; k++ {
			if d.on[k] && st.mayHold(k) {
				return true
			}
		}
	}
	return false
}

// detect reports the identifiers of f's lines, except those whose entry in
// of is negative (context lines, read but not reported on).
func (d *Detector) detect(f *scanner.Fragment, of []int, emit func(scanner.Match)) {
	var trailers map[int]bool
	message := f.Kind == finding.KindCommitMessage
	if message {
		trailers = trailerLines(f.Lines)
	}
	credits := attributionFile(f.Path)
	docs := docFile(f.Path) || extensionlessDoc(f.Path)
	changelog := changelogFile(f.Path)
	readme := docs || (f.Path != "" && len(path.Base(f.Path)) >= 6 && equalFold([]byte(path.Base(f.Path)[:6]), "readme"))
	authors := authorBlock{ci: ciConfig(f.Path)}
	mkind := manifestOf(f.Path)
	third := thirdPartyPath(f.Path) || (!message && generatedFragment(f.Lines))
	manifest := manifestState{kind: mkind}
	ruby := rubyFile(f.Path)
	python := pythonModule(f.Path)
	rubyBuild := rubyBuildFile(f.Path)
	gemfile := rubyBuild || (path.Base(f.Path) == "Gemfile" && !inFixtureDir(f.Path))
	conduct := conductFile(f.Path)
	// po: a gettext catalog outside fixtures, whose header names its
	// translators and its bug-report address.
	po := poFile(f.Path) && !inFixtureDir(f.Path)
	var gem gemBlock
	// docstring: the field lists of a Python module's docstrings.
	var docstring docFields
	// header: the file's leading comment block (not for messages, and
	// not in fixtures, whose header comments are fixture data).
	header := headerComment{code: message || f.Path == "" || (inFixtureDir(f.Path) && !exampleCode(f.Path)), xml: xmlFile(f.Path)}
	section := authorSection{markdown: docs}
	var list creditList
	// docinfo: a reStructuredText docinfo field list (not in messages,
	// not in fixtures).
	var docinfo docinfoList
	var fields authorFields
	fixture := f.Path != "" && inFixtureDir(f.Path)
	docinfoOn := !message && !fixture
	sections := !message && f.Path != "" && !inFixtureDir(f.Path)
	// prevCont: the previous line continued a credit.
	prevCont := false
	// prevHeader: the previous line was a line of the header comment.
	prevHeader := false
	// ssh: the SSH protocol names the fragment uses, read at the first
	// quoted candidate.
	var ssh sshNames
	// dunder: a credit dunder's triple-quoted string in a Python module.
	var dunder dunderBlock
	// ciComment: a CI configuration's notification block commented out
	// line by line ("#  email:" / "#    - address").
	ciComment := authorBlock{ci: true}
	// r20: the rules built after round 20 (round20.go).
	r20 := newRound20(f.Path, message, docs)
	// r21: the rules built after round 21 (round21.go).
	r21 := newRound21(f.Path, message, docs)
	// r22: the rules built after round 22 (round22.go).
	r22 := newRound22(f.Path, message, docs, f.Lines)
	// r23: the rules built after round 23 (round23.go).
	r23 := newRound23(f.Path, message, readme && !fixture)
	// r24: the rules built after round 24 (round24.go).
	r24 := newRound24(f.Path, message, f.Lines)
	// r25: the rules built after round 25 (round25.go).
	r25 := newRound25(f.Path, message)
	// r26: the rules built after round 26 (round26.go).
	r26 := newRound26(f.Path, message, docs)
	// r27: the rules built after rounds 27 and 28 (round27.go).
	r27 := newRound27(f.Path, message, docs, changelog, fixture, mkind)
	// r31: the rules built after round 31 (round31.go).
	r31 := newRound31(f.Path, message, readme, fixture)
	for i := range f.Lines {
		text := f.Lines[i].Text
		st := scanLine(text)
		// A line that is only "Name <address>" right after a credit line
		// (or another such line) continues the credit. The credit line
		// is read only then: most lines are not ident lines.
		continued := false
		if st.mayHold(kindEmail) && i > 0 && f.Lines[i-1].Number+1 == f.Lines[i].Number && identLine(text) {
			continued = prevCont || creditLine(f.Lines[i-1].Text)
		}
		prevCont = continued
		inAuthors := authors.next(text) || (i > 0 && f.Lines[i-1].Number+1 == f.Lines[i].Number && endsWithBy(f.Lines[i-1].Text)) || continued
		inManifest := manifest.next(text) || keyringUID(text) || (authors.ci && ciRecipient(text))
		if ruby && gem.next(text) {
			inManifest = true
		}
		if authors.ci && commentedRecipient(&ciComment, text) {
			inManifest = true
		}
		inHeader := header.next(f.Lines[i])
		// adjacent: the previous line of the fragment is the previous
		// line of the file.
		adjacent := i > 0 && f.Lines[i-1].Number+1 == f.Lines[i].Number
		signed := inHeader && prevHeader && adjacent
		prevHeader = inHeader
		inList := list.next(f.Lines[i], inHeader)
		inDocinfo := docinfoOn && docinfo.next(f.Lines[i])
		// lists: the mailing lists the line's URLs name, read at the
		// line's first address that needs them.
		var lists [][]byte
		listsRead := false
		emailField := fields.next(f.Lines[i], inHeader)
		inSection := sections && section.next(f.Lines[i])
		docField := python && docstring.next(f.Lines[i])
		inDunder := python && !fixture && dunder.next(f.Lines[i])
		r20.next(text)
		r21.next(text)
		if of != nil && of[i] < 0 {
			continue // context: read, not reported on
		}
		if trailers[i] {
			continue // a commit's people, not a leak
		}
		for k := kind(0); k < numKinds; k++ {
			if !d.on[k] || !st.mayHold(k) {
				continue
			}
			report := func(start, end int) {
				s := &specs[k]
				sev, desc := s.severity, s.description
				if k == kindEmail {
					if message && inlineTrailer(text, start) {
						return // a trailer a squash merge left inside a line
					}
					if r22.notMailbox(k, text, start, end) {
						return // "user:password@host" quoted in a file about URLs
					}
					switch {
					case credits || inAuthors || inManifest || manifestCredit(mkind, text, start, end) || attributedOnLine(text, start) ||
						(readme && (escapedCredit(text, start, end) || shortlogLine(text))) || (changelog && (identForm(text, start, end) || changelogEntryCredit(text, start, end))) ||
						inSection || (inHeader && headerCredit(text, start, end)) || inList ||
						(ruby && (gemDSLPerson(text, start, end) || gemFieldAhead(f.Lines, i))) ||
						(emailField >= 0 && (start == emailField || (start == emailField+1 && at(text, emailField) == '<'))) ||
						(python && dunderEmail(text, start)) || (rubyBuild && gemEmailConstant(text, start)) || (gemfile && commentedGemEmail(text, start)) || (!message && (gitIdentity(text, start) || rpmChangelogEntry(text, start)) && !inFixtureDir(f.Path)) ||
						(signed && headerSignature(f.Lines[i-1].Text, text, start, end)) || (!fixture && !message && adjacent && wrappedCredit(f.Lines[i-1].Text, text, start, end)) || (!fixture && grammarCredit(text, start, message || docs || changelog)) ||
						(po && inHeader && poTranslatorLine(text, start, end)) || (!message && !fixture && vcsKeyword(text, start, end)) || inDocinfo || (docinfoOn && byField(text, start, end)) || docField ||
						(!message && !fixture && (fpmMaintainer(f.Lines, i, start) || rpmPackager(f.Path, text, start) || sshKeyComment(f.Path, text, start) || sphinxAuthor(text, start))) ||
						inDunder || (message && addedToCreditFile(text, start, end)) || (!message && !fixture && cookiecutterEmail(f.Path, text, start)):
						sev, desc = finding.SeverityNote, attributionDescription
					case !message && ssh.protocolName(f, text, start, end):
						sev, desc = finding.SeverityNote, protocolNameDescription
					case message && messageCredit(f.Lines, i, start, end), !message && valedictionSignature(text, start, end) && !inFixtureDir(f.Path):
						sev, desc = finding.SeverityNote, attributionDescription
					case !fixture && signingKeyArg(text, start):
						sev, desc = finding.SeverityNote, signingKeyDescription
					case third:
						sev, desc = finding.SeverityNote, thirdPartyDescription
					case !fixture && mailmanListLink(linkedLists(text, &lists, &listsRead), text, start, end), docs && (mailtoContact(text, start) || mailtoLinkText(text, start, end) || listContact(text, start, end) || discussContact(text, start)):
						sev, desc = finding.SeverityNote, contactDescription
					case conduct, !message && !fixture && conductSentence(f.Lines, i, start):
						// A code of conduct's contact.
						sev, desc = finding.SeverityNote, conductDescription
					case !message && (bugContact(text, start) || bugLabel(text, start)) && !inFixtureDir(f.Path), po && poBugsField(text):
						// A bug-report contact, in files (not in messages,
						// not in fixtures).
						sev, desc = finding.SeverityNote, bugContactDescription
					}
				}
				if sev == s.severity {
					if d := r20.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r21.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r22.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r23.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r24.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r25.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r26.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r27.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					} else if d := r31.lower(k, f.Lines, i, start, end); d != "" {
						sev, desc = finding.SeverityNote, d
					}
				}
				emit(scanner.Match{
					Line:        i,
					Start:       start,
					End:         end,
					RuleID:      s.ruleID,
					Source:      finding.SourcePII,
					Category:    s.name,
					Severity:    sev,
					Description: desc,
				})
			}
			d.find(k, text, report)
		}
	}
}

// attributionDescription describes an email finding in a credit.
const attributionDescription = "An email address in a credit (copyright, author or maintainer line, a list of a project's people): personal data published on purpose, reported as a note."

// thirdPartyDescription describes an email finding in a vendored,
// lock or generated file.
const thirdPartyDescription = "An email address in a third-party or generated file (a vendored module, a lock file, a minified bundle, a file a generator wrote): the third party's published credit or contact, reported as a note."

// contactDescription describes an email finding in a mailto: link of a
// documentation file, or named there as a mailing list.
const contactDescription = "An email address in a mailto: link of a documentation file, or named there as a mailing list: a contact published on purpose, reported as a note."

// lineStats counts the bytes that candidates of each detector need, so a
// line is scanned only by detectors that could match it.
type lineStats [numClasses]int32

// Byte classes counted by scanLine.
const (
	clOther = iota
	clDigit
	clUpper
	clDot
	clColon
	clAt
	clPlus
	numClasses
)

// byteClass maps every byte to its class. It is computed once and never
// modified.
var byteClass = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = clUpper
	}
	t['.'], t[':'], t['@'], t['+'] = clDot, clColon, clAt, clPlus
	return t
}()

func scanLine(b []byte) lineStats {
	var st lineStats
	for _, c := range b {
		st[byteClass[c]]++
	}
	return st
}

// mayHold reports whether a line with these counts can hold a match of k.
func (st *lineStats) mayHold(k kind) bool {
	digits := st[clDigit]
	switch k {
	case kindEmail:
		return st[clAt] > 0 && st[clDot] > 0
	case kindPhone:
		return digits >= 10 || (st[clPlus] > 0 && digits >= 8)
	case kindCard:
		return digits >= minCard
	case kindIBAN:
		return st[clUpper] >= 2 && digits >= 2
	case kindSSN:
		return digits >= 9
	case kindIP:
		return (digits >= 4 && st[clDot] >= 3) || (st[clColon] >= 2 && digits > 0)
	}
	return false
}

// find runs detector k over one line.
func (d *Detector) find(k kind, text []byte, report func(start, end int)) {
	switch k {
	case kindEmail:
		findEmails(text, report)
	case kindPhone:
		findPhones(text, report)
	case kindCard:
		findCards(text, d.skipTestCards, report)
	case kindIBAN:
		findIBANs(text, report)
	case kindSSN:
		findSSNs(text, report)
	case kindIP:
		findIPs(text, report)
	}
}

// Byte classes shared by the recognisers. They are ASCII-only on purpose:
// a non-ASCII byte is never part of an identifier here, and never a letter
// for boundary purposes.

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isAlpha(c byte) bool { return isUpper(c) || isLower(c) }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }
func isHex(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// isWord reports whether c continues an identifier: a letter, a digit or
// an underscore.
func isWord(c byte) bool { return isAlnum(c) || c == '_' }

// before returns the byte before i, or 0 at the start of the line.
func before(b []byte, i int) byte {
	if i <= 0 {
		return 0
	}
	return b[i-1]
}

// at returns b[i], or 0 past the end.
func at(b []byte, i int) byte {
	if i < 0 || i >= len(b) {
		return 0
	}
	return b[i]
}

// numericTail reports whether the text at i continues a number: a '.', '-'
// or ',' directly followed by a digit, which makes the candidate part of a
// longer dotted or dashed number (a float, a version, a date, a list).
func numericTail(b []byte, i int) bool {
	c := at(b, i)
	return (c == '.' || c == '-' || c == ',') && isDigit(at(b, i+1))
}

// lowerASCII returns c lowercased.
func lowerASCII(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// equalFold reports whether b equals the lowercase ASCII string s, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lowerASCII(b[i]) != s[i] {
			return false
		}
	}
	return true
}

// hasSuffixFold reports whether b ends with the lowercase ASCII string s,
// ignoring case.
func hasSuffixFold(b []byte, s string) bool {
	return len(b) >= len(s) && equalFold(b[len(b)-len(s):], s)
}

// containsFold reports whether b contains the lowercase ASCII string s,
// ignoring case.
func containsFold(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if equalFold(b[i:i+len(s)], s) {
			return true
		}
	}
	return false
}
