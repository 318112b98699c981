package mcpserver

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Input caps. Replies are capped separately (see result.go).
const (
	// MaxScanText is the largest text scan_text accepts, in bytes.
	MaxScanText = 1 << 20
	// MaxRedactText is the largest text redact_text accepts, in bytes: the
	// reply repeats the text, and must stay well under the client's reply
	// cap (Claude Code: 25,000 tokens).
	MaxRedactText = 32 << 10
	// MaxPaths is the most paths scan_diff accepts.
	MaxPaths = 100
	// maxPathLen bounds one path.
	maxPathLen = 4096
	// maxKeyLen bounds a key or catalog_key.
	maxKeyLen = 256
	// maxRevLen bounds base and head.
	maxRevLen = 256
	// maxAgentID bounds agent_id.
	maxAgentID = 64
)

// args reads a tool call's arguments: a JSON object whose members are
// checked one by one, so that a mistake gets a message written for the
// caller rather than a schema validator's.
type args struct {
	m map[string]any
}

// readArgs checks that raw is an object (or absent) whose members are all
// among allowed.
func readArgs(raw any, allowed ...string) (*args, *toolError) {
	var m map[string]any
	switch v := raw.(type) {
	case nil:
		m = map[string]any{}
	case map[string]any:
		m = v
	default:
		return nil, errorf(CodeInvalidArgument, "arguments must be a JSON object")
	}
	unknown := 0
	for k := range m {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			unknown++
		}
	}
	if unknown > 0 {
		// The unknown name is not repeated: it is free text.
		return nil, errorf(CodeInvalidArgument, "unknown argument; this tool accepts %s", strings.Join(allowed, ", "))
	}
	return &args{m: m}, nil
}

// str reads a string argument; "" when absent, null or empty. A string
// longer than max bytes is input_too_large; invalid UTF-8 is refused.
func (a *args) str(name string, required bool, max int) (string, *toolError) {
	v, ok := a.m[name]
	if !ok || v == nil {
		if required {
			return "", errorf(CodeInvalidArgument, "missing required argument %s", name)
		}
		return "", nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", errorf(CodeInvalidArgument, "argument %s must be a string, not %s", name, jsonType(v))
	}
	if len(s) > max {
		return "", errorf(CodeInputTooLarge, "argument %s is %s; the limit is %s", name, size(len(s)), size(max))
	}
	if !utf8.ValidString(s) {
		return "", errorf(CodeInvalidArgument, "argument %s is not valid UTF-8", name)
	}
	if required && s == "" {
		return "", errorf(CodeInvalidArgument, "argument %s must not be empty", name)
	}
	return s, nil
}

// boolean reads an optional boolean argument.
func (a *args) boolean(name string) (bool, *toolError) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, errorf(CodeInvalidArgument, "argument %s must be true or false, not %s", name, jsonType(v))
	}
	return b, nil
}

// strList reads an optional array of non-empty strings.
func (a *args) strList(name string, maxItems, maxLen int) ([]string, *toolError) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return nil, nil
	}
	list, isList := v.([]any)
	if !isList {
		return nil, errorf(CodeInvalidArgument, "argument %s must be an array of strings, not %s", name, jsonType(v))
	}
	if len(list) > maxItems {
		return nil, errorf(CodeInputTooLarge, "argument %s has %d items; the limit is %d", name, len(list), maxItems)
	}
	out := make([]string, 0, len(list))
	for i, it := range list {
		s, isStr := it.(string)
		switch {
		case !isStr:
			return nil, errorf(CodeInvalidArgument, "item %d of %s must be a string, not %s", i, name, jsonType(it))
		case s == "":
			return nil, errorf(CodeInvalidArgument, "item %d of %s is empty", i, name)
		case len(s) > maxLen:
			return nil, errorf(CodeInputTooLarge, "item %d of %s is %s; the limit is %s", i, name, size(len(s)), size(maxLen))
		case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
			return nil, errorf(CodeInvalidArgument, "item %d of %s is not a valid path", i, name)
		}
		out = append(out, s)
	}
	return out, nil
}

// agentID reads agent_id: a short identifier, so the audit log never
// records free text.
func (a *args) agentID() (string, *toolError) {
	s, e := a.str("agent_id", false, maxAgentID)
	if e != nil {
		if e.Code == CodeInputTooLarge {
			e.Code = CodeInvalidArgument
		}
		return "", e
	}
	if s != "" && !validAgentID(s) {
		return "", errorf(CodeInvalidArgument, "agent_id may hold only letters, digits and . _ : @ / + - (at most %d characters)", maxAgentID)
	}
	return s, nil
}

func validAgentID(s string) bool {
	if s == "" || len(s) > maxAgentID {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("._:@/+-", r):
		default:
			return false
		}
	}
	return true
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, int, int64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "another type"
}

// size renders a byte count for messages.
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// whole reads an optional whole-number argument from 0 to max; 0 when
// absent or null.
func (a *args) whole(name string, max int) (int, *toolError) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return 0, nil
	}
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	case json.Number:
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, errorf(CodeInvalidArgument, "argument %s must be a whole number from 0 to %d", name, max)
		}
	default:
		return 0, errorf(CodeInvalidArgument, "argument %s must be a whole number, not %s", name, jsonType(v))
	}
	if f != math.Trunc(f) || f < 0 || f > float64(max) {
		return 0, errorf(CodeInvalidArgument, "argument %s must be a whole number from 0 to %d", name, max)
	}
	return int(f), nil
}
