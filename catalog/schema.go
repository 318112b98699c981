// The schema of a table export (docs/catalog.md, "Catalogs from a table"):
// which columns of a CSV, TSV or JSON Lines file are catalog values, and
// the rule each one feeds.

package catalog

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"

	"github.com/pelletier/go-toml/v2"
)

// TableFormat is the format of a table export.
type TableFormat uint8

const (
	// TableUnknown: not set (the file name's suffix decides).
	TableUnknown TableFormat = iota
	// TableCSV is RFC 4180 CSV with a header row.
	TableCSV
	// TableTSV is tab-separated values with a header row and no quoting.
	TableTSV
	// TableJSONL is JSON Lines: one object per line, keyed by column.
	TableJSONL
)

func (f TableFormat) String() string {
	switch f {
	case TableCSV:
		return "csv"
	case TableTSV:
		return "tsv"
	case TableJSONL:
		return "jsonl"
	}
	return "unknown"
}

// ParseTableFormat parses "csv", "tsv" or "jsonl" ("ndjson" is jsonl).
func ParseTableFormat(s string) (TableFormat, bool) {
	switch s {
	case "csv":
		return TableCSV, true
	case "tsv":
		return TableTSV, true
	case "jsonl", "ndjson":
		return TableJSONL, true
	}
	return TableUnknown, false
}

// MaxSchemaBytes is the largest schema file read.
const MaxSchemaBytes = 1 << 20

// MaxSchemaColumns is the most columns a schema may list.
const MaxSchemaColumns = 1024

// Schema maps the columns of a table export to catalog rules.
type Schema struct {
	// Format is the table's format, or TableUnknown.
	Format TableFormat
	// MaxBadRows is how many bad rows a seal tolerates (skipping them)
	// before it fails; 0: none.
	MaxBadRows int
	// FingerprintKey is the 32-byte fingerprint key, or nil (the table's
	// digest keys fingerprints, as for a Markdown catalog without one).
	FingerprintKey []byte
	// Columns lists the searchable columns, in schema order.
	Columns []SchemaColumn
}

// SchemaColumn is one searchable column: its values feed Rule.
type SchemaColumn struct {
	// Name is the column's header (CSV, TSV) or key (JSON Lines).
	Name string
	// Rule holds the rule's settings (no values). Several columns may feed
	// one rule ID if their settings agree.
	Rule Rule
}

// SchemaError is a problem in a schema file. It names a line of the
// schema (0: the whole file) and a reason; the schema holds no catalog
// value, but TOML errors are rewritten all the same.
type SchemaError struct {
	Line   int
	Reason string
}

func (e *SchemaError) Error() string {
	if e.Line > 0 {
		return "schema line " + strconv.Itoa(e.Line) + ": " + e.Reason
	}
	return "schema: " + e.Reason
}

type rawSchema struct {
	Format         string      `toml:"format"`
	MaxBadRows     *int        `toml:"max-bad-rows"`
	FingerprintKey string      `toml:"fingerprint-key"`
	Columns        []rawColumn `toml:"columns"`
}

type rawColumn struct {
	Name        string `toml:"name"`
	Rule        string `toml:"rule"`
	Category    string `toml:"category"`
	Severity    string `toml:"severity"`
	Match       string `toml:"match"`
	Case        string `toml:"case"`
	Boundary    string `toml:"boundary"`
	Description string `toml:"description"`
	// Record rules (record.go).
	CorroboratedBy []string `toml:"corroborated-by"`
	Within         any      `toml:"within"`
	Uncorroborated string   `toml:"uncorroborated"`
	Search         *bool    `toml:"search"`
}

// decodeSchemaTOML decodes data into raw, refusing unknown keys. A panic
// of the decoder is a decode error here, so that hostile input never
// crashes the process with the decoder's message (go-toml v2.2.3 panicked
// while it reported an unknown quoted key with an escape in it,
// `"a\bb" = 1`; v2.4.3 reports it).
func decodeSchemaTOML(data []byte, raw *rawSchema) (err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("toml decoder panic")
		}
	}()
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(raw)
}

// ParseSchema parses a schema file (TOML). Its errors are *SchemaError.
func ParseSchema(data []byte) (*Schema, error) {
	if len(data) > MaxSchemaBytes {
		return nil, &SchemaError{Reason: "larger than " + strconv.Itoa(MaxSchemaBytes) + " bytes"}
	}
	var raw rawSchema
	if err := decodeSchemaTOML(data, &raw); err != nil {
		var sm *toml.StrictMissingError
		if errors.As(err, &sm) && len(sm.Errors) > 0 {
			row, _ := sm.Errors[0].Position()
			return nil, &SchemaError{Line: row, Reason: "unknown key (known: format, max-bad-rows, fingerprint-key, [[columns]] with name, rule, category, severity, match, case, boundary, description, corroborated-by, within, uncorroborated, search)"}
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, _ := de.Position()
			return nil, &SchemaError{Line: row, Reason: "invalid TOML or a setting of the wrong type"}
		}
		return nil, &SchemaError{Reason: "invalid TOML or a setting of the wrong type"}
	}
	s := &Schema{}
	if raw.Format != "" {
		f, ok := ParseTableFormat(raw.Format)
		if !ok {
			return nil, &SchemaError{Reason: "format must be csv, tsv or jsonl"}
		}
		s.Format = f
	}
	if raw.MaxBadRows != nil {
		if *raw.MaxBadRows < 0 {
			return nil, &SchemaError{Reason: "max-bad-rows must not be negative"}
		}
		s.MaxBadRows = *raw.MaxBadRows
	}
	if raw.FingerprintKey != "" {
		k, err := hex.DecodeString(raw.FingerprintKey)
		if err != nil || len(k) != 32 {
			return nil, &SchemaError{Reason: fingerprintKeySetting + " must be 64 hexadecimal digits"}
		}
		s.FingerprintKey = k
	}
	if len(raw.Columns) == 0 {
		return nil, &SchemaError{Reason: "no [[columns]] (each names a column and the rule its values feed)"}
	}
	if len(raw.Columns) > MaxSchemaColumns {
		return nil, &SchemaError{Reason: "more than " + strconv.Itoa(MaxSchemaColumns) + " columns"}
	}
	names := map[string]int{}
	rules := map[string]int{}
	for i, rc := range raw.Columns {
		label := "column " + strconv.Itoa(i+1)
		if rc.Name == "" || len(rc.Name) > 256 || !printableText([]byte(rc.Name)) {
			return nil, &SchemaError{Reason: label + ": name must be 1 to 256 bytes of printable UTF-8"}
		}
		if _, dup := names[rc.Name]; dup {
			return nil, &SchemaError{Reason: label + ": the column is listed twice"}
		}
		names[rc.Name] = i
		r, reason := schemaRule(&rc)
		if reason != "" {
			return nil, &SchemaError{Reason: label + ": " + reason}
		}
		if j, ok := rules[r.ID]; ok && !sameSettings(&s.Columns[j].Rule, &r) {
			return nil, &SchemaError{Reason: label + ": rule " + r.ID + " is fed by another column with other settings (columns of one rule must agree)"}
		} else if !ok {
			rules[r.ID] = i
		}
		s.Columns = append(s.Columns, SchemaColumn{Name: rc.Name, Rule: r})
	}
	if err := s.recordRules(raw.Columns, names); err != nil {
		return nil, err
	}
	return s, nil
}

// recordRules sets the record rules of s's columns (RecordRule) from
// their corroborated-by, within, uncorroborated and search settings.
// Errors name the column by its position, never a value (a schema holds
// none).
func (s *Schema) recordRules(raw []rawColumn, names map[string]int) error {
	recs := make([]*RecordRule, len(raw))
	named := map[string]bool{} // rule IDs named by some corroborated-by
	for i := range raw {
		rc := &raw[i]
		label := "column " + strconv.Itoa(i+1)
		hidden := rc.Search != nil && !*rc.Search
		if len(rc.CorroboratedBy) == 0 {
			if rc.Within != nil || rc.Uncorroborated != "" {
				return &SchemaError{Reason: label + ": within and uncorroborated need corroborated-by"}
			}
			if hidden {
				recs[i] = &RecordRule{Hidden: true}
			}
			continue
		}
		if hidden {
			return &SchemaError{Reason: label + ": a column with search = false only corroborates: it cannot have corroborated-by"}
		}
		rr := &RecordRule{}
		seen := map[string]bool{}
		for _, by := range rc.CorroboratedBy {
			j, ok := names[by]
			switch {
			case !ok:
				return &SchemaError{Reason: label + ": corroborated-by names a column the schema does not list (list it, with search = false if it should only corroborate)"}
			case j == i:
				return &SchemaError{Reason: label + ": a column cannot corroborate itself"}
			case s.Columns[j].Rule.ID == s.Columns[i].Rule.ID:
				return &SchemaError{Reason: label + ": corroborated-by names a column of the same rule"}
			}
			named[s.Columns[j].Rule.ID] = true
			if id := s.Columns[j].Rule.ID; !seen[id] {
				seen[id] = true
				rr.By = append(rr.By, id)
			}
		}
		switch w := rc.Within.(type) {
		case nil:
			return &SchemaError{Reason: label + ": corroborated-by needs within (a number of lines, or \"file\")"}
		case int64:
			if w < 0 || w > MaxWithin {
				return &SchemaError{Reason: label + ": within must be 0 to " + strconv.Itoa(MaxWithin) + " lines, or \"file\""}
			}
			rr.Within = int(w)
		case string:
			if w != "file" {
				return &SchemaError{Reason: label + ": within must be a number of lines or \"file\""}
			}
			rr.Within = WithinFile
		default:
			return &SchemaError{Reason: label + ": within must be a number of lines or \"file\""}
		}
		switch rc.Uncorroborated {
		case "", "drop":
		case "note":
			rr.Uncorroborated = SeverityNote
		default:
			return &SchemaError{Reason: label + ": uncorroborated must be drop or note"}
		}
		recs[i] = rr
	}
	for i := range raw {
		id := s.Columns[i].Rule.ID
		if recs[i] != nil && recs[i].Hidden && !named[id] {
			return &SchemaError{Reason: "column " + strconv.Itoa(i+1) + ": search = false, but no column is corroborated by it"}
		}
		if recs[i] == nil && named[id] {
			recs[i] = &RecordRule{}
		}
	}
	// The columns of one rule must agree on its record rule.
	byRule := map[string]int{}
	for i := range raw {
		id := s.Columns[i].Rule.ID
		j, ok := byRule[id]
		if !ok {
			byRule[id] = i
			continue
		}
		if !sameRecord(recs[i], recs[j]) {
			return &SchemaError{Reason: "column " + strconv.Itoa(i+1) + ": rule " + id + " is fed by another column with other record settings (columns of one rule must agree)"}
		}
		recs[i] = recs[j]
	}
	for i := range raw {
		s.Columns[i].Rule.Record = recs[i]
	}
	return nil
}

func sameRecord(a, b *RecordRule) bool {
	if a == nil || b == nil {
		return a == b
	}
	return slices.Equal(a.By, b.By) && a.Within == b.Within && a.Uncorroborated == b.Uncorroborated && a.Hidden == b.Hidden
}

// printableText reports valid UTF-8 without control characters.
func printableText(b []byte) bool {
	clean, _ := blockFacts(string(b))
	return clean && !bytes.ContainsAny(b, "\t\r\n")
}

func schemaRule(rc *rawColumn) (Rule, string) {
	r := Rule{ID: rc.Rule, Category: rc.Category, Severity: SeverityError}
	if !validRuleID([]byte(rc.Rule)) {
		return r, "rule must be a rule ID (a letter, then up to 63 letters, digits, '.', '_' or '-')"
	}
	if !validCategory([]byte(rc.Category)) {
		return r, "category is required: a lowercase letter, then up to 31 lowercase letters, digits or '-'"
	}
	if rc.Severity != "" {
		sev, ok := ParseSeverity(rc.Severity)
		if !ok {
			return r, "severity must be error, warning or note"
		}
		r.Severity = sev
	}
	switch rc.Match {
	case "", "literal":
	case "identifier":
		r.Match = MatchIdentifier
	case "regex":
		return r, "match regex is not available for a table (keep regex rules in a Markdown catalog)"
	default:
		return r, "match must be literal or identifier"
	}
	switch rc.Case {
	case "", "insensitive":
	case "sensitive":
		r.CaseSensitive = true
	default:
		return r, "case must be insensitive or sensitive"
	}
	switch rc.Boundary {
	case "", "word":
	case "none":
		r.NoBoundary = true
	default:
		return r, "boundary must be word or none"
	}
	if d := []byte(rc.Description); len(d) > 0 {
		switch {
		case len(d) > MaxDescriptionBytes:
			return r, "description is longer than " + strconv.Itoa(MaxDescriptionBytes) + " bytes"
		case !printableText(d):
			return r, "description must be printable UTF-8 on one line"
		}
		r.Description = rc.Description
	}
	return r, ""
}

func sameSettings(a, b *Rule) bool {
	return a.ID == b.ID && a.Category == b.Category && a.Severity == b.Severity && a.Match == b.Match &&
		a.CaseSensitive == b.CaseSensitive && a.NoBoundary == b.NoBoundary && a.Description == b.Description
}
