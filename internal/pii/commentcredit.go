package pii

import "bytes"

// Credits read by grammar in comments, and signatures in a file's header
// comment (the rules built after held-out round 15).

// commentText returns a comment line's text after its comment marker
// and blanks (see commentBody), trimmed, and whether the line is a
// comment.
func commentText(line []byte) ([]byte, bool) {
	b := commentBody(bytes.TrimLeft(line, " \t"))
	if b == nil {
		return nil, false
	}
	return bytes.TrimSpace(b), true
}

// nameOnly reports a text that is only a personal name: two to four
// words, each capitalised (or starting with a non-ASCII letter) and made
// of letters, '.', '-' and '\” ("Given Surname", "A. B. Surname",
// "Given van Surname" is not: every word is capitalised).
func nameOnly(t []byte) bool {
	words := bytes.Fields(t)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		if !isUpper(w[0]) && w[0] < 0x80 {
			return false
		}
		for _, c := range w {
			if !isAlpha(c) && c != '.' && c != '-' && c != '\'' && c < 0x80 {
				return false
			}
		}
	}
	return true
}

// headerSignature reports an address that is alone on its header comment
// line ("# address" or "# <address>") right after a header comment line
// that is only a personal name ("# Given Surname"): the author signing
// the file, as vendored GNU scripts do. prev is the previous line's text,
// which the caller has checked is the previous line of the file and a
// header comment line. An address alone after any other line (a sentence,
// "# Contact:") keeps the warning.
func headerSignature(prev, line []byte, start, end int) bool {
	body, ok := commentText(line)
	if !ok {
		return false
	}
	addr := line[start:end]
	if !bytes.Equal(body, addr) && !(len(body) == len(addr)+2 && body[0] == '<' && body[len(body)-1] == '>' && bytes.Equal(body[1:len(body)-1], addr)) {
		return false
	}
	name, ok := commentText(prev)
	return ok && nameOnly(name)
}

// commentClause returns the clause of a comment that ends at start: the
// text after the line's comment marker (at the line's start, or a '#' or
// "//" after a blank), from the last sentence end (". ", "; ", "! ",
// "? ") on. It returns nil when the address is not in a comment.
func commentClause(line []byte, start int) []byte {
	head := line[:start]
	k := -1
	if t := bytes.TrimLeft(head, " \t"); commentStart(t) {
		k = len(head) - len(t)
	} else {
		for i := 1; i < len(head); i++ {
			if (head[i] == '#' || (head[i] == '/' && at(head, i+1) == '/')) && (head[i-1] == ' ' || head[i-1] == '\t') {
				k = i
				break
			}
		}
		// A marker inside a string literal ("x # tested by" in quotes)
		// is not a comment.
		if k > 0 && (bytes.Count(head[:k], []byte(`"`))%2 == 1 || bytes.Count(head[:k], []byte(`'`))%2 == 1 || bytes.Count(head[:k], []byte("`"))%2 == 1) {
			return nil
		}
	}
	if k < 0 {
		return nil
	}
	return lastClause(bytes.TrimLeft(head[k:], "#*/;%-!{(<\""))
}

// lastClause returns c from its last sentence end (". ", "; ", "! ",
// "? ", or the same before a tab) on, or all of c without one.
func lastClause(c []byte) []byte {
	for i := len(c) - 2; i >= 0; i-- {
		switch c[i] {
		case '.', ';', '!', '?':
			if c[i] == '.' && i > 0 && isUpper(c[i-1]) && (i == 1 || c[i-2] == ' ' || c[i-2] == '"') {
				continue // a name's initial ("Ana B. Example")
			}
			if c[i+1] == ' ' || c[i+1] == '\t' {
				return c[i+1:]
			}
		}
	}
	return c
}

// irregularParticiples are the past participles not ending in "-ed" that
// credit work on code or text ("written by", "rewritten by").
var irregularParticiples = []string{"written", "rewritten", "done", "made", "given", "taken", "built", "rebuilt", "found", "brought", "begun", "drawn"}

// notCreditParticiples are "-ed" participles that, before "by", relate a
// person to data rather than credit their work: "owned by", "used by",
// "assigned to"'s passive "assigned by", a message "forwarded by" or
// "emailed by". An address after them keeps the warning.
var notCreditParticiples = []string{"owned", "used", "assigned", "shared", "forwarded", "mailed", "emailed", "addressed", "received", "delivered", "registered", "billed", "paid", "ordered", "purchased", "booked", "accessed", "viewed", "blocked", "banned", "deleted", "removed", "followed", "contacted", "called", "signed", "verified", "approved", "authorized", "authorised", "hosted", "managed", "controlled", "requested", "opened", "closed", "logged"}

// creditParticiple reports a past participle of work that, before "by",
// credits the person after it: an irregular one ("written", "done") or a
// word of four or more letters ending in "-ed", except the participles
// of possession, use or delivery (notCreditParticiples).
func creditParticiple(p []byte) bool {
	return !oneOfFold(p, notCreditParticiples) && (oneOfFold(p, irregularParticiples) || (len(p) >= 4 && hasSuffixFold(p, "ed") && allAlpha(p)))
}

// contributionNouns, followed by "from" in the same clause, credit the
// person after "from" ("Fix to use x from address", "Change from Name
// <address>").
var contributionNouns = []string{"fix", "fixes", "change", "changes", "patch", "patches", "suggestion", "suggestions", "idea", "ideas", "contribution", "contributions", "help", "code"}

// oneOfFold reports whether w is one of set, without case.
func oneOfFold(w []byte, set []string) bool {
	for _, s := range set {
		if equalFold(w, s) {
			return true
		}
	}
	return false
}

// creditTail reports whether words, the words between "by" or "from" and
// the address, are nothing or only personal names before '<' or '(':
// "by address", "by Name <address>", "from Name (address)", a quoted
// name ("supplied by \"Ana B. Example\" <address>"), and several people
// joined by "and" or after an earlier one's address ("by Ana Example
// <address> and Bo <address>").
func creditTail(words [][]byte, open bool) bool {
	if len(words) == 0 {
		return true
	}
	if !open {
		return false
	}
	// n: the words of the current name; an earlier person's address in
	// angle brackets, or "and", starts the next ("by Ana Example
	// <address> and Bo <").
	n := 0
	for _, w := range words {
		switch {
		case equalFold(w, "and") || string(w) == "&":
			n = 0
			continue
		case w[0] == '<' && bytes.IndexByte(w, '@') > 0 && bytes.HasSuffix(bytes.TrimRight(w, ","), []byte(">")):
			n = 0
			continue
		}
		n++
		if n > 4 || (!isUpper(w[0]) && w[0] < 0x80 && w[0] != '"' && w[0] != '(') {
			return false
		}
	}
	return true
}

// grammarCredit reports a credit by grammar in a comment, a commit
// message or a documentation file (never in code outside a comment, a
// string literal or a data file, where "... by address" can be a
// record's data): a past participle of work on the code ("tested",
// "fixed", "written"), optionally after adverbs ending in "-ly", directly
// followed by "by" and then the address or "Name <address>" ("lightly
// tested by address", "originally written by Name <address>"); or a
// contribution noun ("fix", "change", "patch", "idea") followed in the
// same clause by "from" and then the address or "Name <address>" ("Fix
// to use x from address", "Change from Name <address>"). Participles of
// possession, use or delivery ("owned by", "used by", "forwarded by")
// and a "from" without a contribution noun ("copied from address's
// home") keep the warning. wholeLine: the line is prose (a message or a
// documentation file), not code with a comment.
func grammarCredit(line []byte, start int, wholeLine bool) bool {
	var clause []byte
	if wholeLine {
		clause = lastClause(line[:start])
	} else {
		clause = commentClause(line, start)
	}
	if clause == nil {
		return false
	}
	t := bytes.TrimRight(clause, " \t")
	open := false
	if len(t) > 0 && (t[len(t)-1] == '<' || t[len(t)-1] == '(') {
		open = true
		t = bytes.TrimRight(t[:len(t)-1], " \t")
	}
	words := bytes.Fields(t)
	for i := len(words) - 1; i >= 0; i-- {
		w := bytes.Trim(words[i], ",")
		switch {
		case equalFold(w, "by"):
			if !creditTail(words[i+1:], open) {
				return false
			}
			j := i - 1
			for j >= 0 && len(words[j]) > 4 && hasSuffixFold(words[j], "ly") {
				j--
			}
			if j < 0 {
				return false
			}
			return creditParticiple(bytes.Trim(words[j], ","))
		case equalFold(w, "from"):
			if !creditTail(words[i+1:], open) {
				return false
			}
			for _, v := range words[:i] {
				if oneOfFold(bytes.Trim(v, ",:"), contributionNouns) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// allAlpha reports a word of ASCII letters only.
func allAlpha(w []byte) bool {
	for _, c := range w {
		if !isAlpha(c) {
			return false
		}
	}
	return true
}

// commentedRecipient feeds a CI configuration's line to b, the tracker of
// a notification block commented out line by line, and reports whether
// the line is a recipient of that block: "#    - address" under
// "#  email:" or "#  recipients:", each line commented with one '#'. A
// line that is not a comment closes the block; a commented address that
// is not under such a key keeps the warning.
func commentedRecipient(b *authorBlock, line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if len(t) == 0 || t[0] != '#' {
		b.open = false
		return false
	}
	u := t[1:]
	return b.next(u) && ciRecipient(u)
}
