package action

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/privscan/privscan/internal/engine"
)

// The environment variables through which action.yml passes the Action's
// inputs (the composite step sets them in its env: block, so no input is
// ever interpolated into script text). The catalog inputs use the names
// every privscan command reads: PRIVSCAN_CATALOG and PRIVSCAN_CATALOG_FILE.
const (
	EnvBase            = "PRIVSCAN_BASE"              // input base
	EnvHead            = "PRIVSCAN_HEAD"              // input head
	EnvFailOn          = "PRIVSCAN_FAIL_ON"           // input fail-on
	EnvSARIFFile       = "PRIVSCAN_SARIF_FILE"        // input sarif-file
	EnvCategory        = "PRIVSCAN_CATEGORY"          // input category
	EnvScanPRText      = "PRIVSCAN_SCAN_PR_TEXT"      // input scan-pr-text
	EnvAnnotations     = "PRIVSCAN_ANNOTATIONS"       // input annotations
	EnvAllowNewMarkers = "PRIVSCAN_ALLOW_NEW_MARKERS" // input allow-new-markers
	EnvCatalog         = "PRIVSCAN_CATALOG"           // input catalog
	EnvCatalogFile     = "PRIVSCAN_CATALOG_FILE"      // input catalog-file
	EnvSealKey         = "PRIVSCAN_SEAL_KEY"          // input seal-key
)

// DefaultSARIFName is the SARIF file's name when the sarif-file input is
// empty: it is written to RUNNER_TEMP (outside the checkout, so neither a
// later scan nor a later commit step picks it up), or to the workspace when
// RUNNER_TEMP is unset.
const DefaultSARIFName = "privscan.sarif"

// maxRevLen bounds a base or head input.
const maxRevLen = 256

// Inputs are the Action's inputs, read from the environment.
type Inputs struct {
	Base, Head  string // revisions; "" = from the event
	FailOn      string // error|warning|note|never; "" = the repository's fail-on, else warning
	SARIFFile   string // "" = DefaultSARIFName in RUNNER_TEMP
	Category    string // SARIF automationDetails.id; "" = none
	ScanPRText  bool   // scan the pull request's title and body (default true)
	Annotations bool   // write workflow-command annotations (default true)
	// AllowNewMarkers lets privscan:allow markers that the change itself
	// adds suppress its findings (default false: they are reported, under
	// review, and fail the check).
	AllowNewMarkers bool
}

// ReadInputs reads and checks the inputs. Its errors name the input, never
// its value: a revision or a mistyped level can hold a catalogued name, and
// the job log is widely readable.
func ReadInputs(getenv func(string) string) (Inputs, error) {
	in := Inputs{
		Base:      strings.TrimSpace(getenv(EnvBase)),
		Head:      strings.TrimSpace(getenv(EnvHead)),
		FailOn:    strings.ToLower(strings.TrimSpace(getenv(EnvFailOn))),
		SARIFFile: strings.TrimSpace(getenv(EnvSARIFFile)),
		Category:  strings.TrimSpace(getenv(EnvCategory)),
	}
	for _, r := range []struct{ name, v string }{{"base", in.Base}, {"head", in.Head}} {
		if err := checkRev(r.v); err != nil {
			return Inputs{}, engine.WithHint(fmt.Errorf("input %s: %w", r.name, err), "give a commit SHA, branch or tag, e.g. ${{ github.event.pull_request.base.sha }}")
		}
	}
	switch in.FailOn {
	case "", "error", "warning", "note", "never":
	default:
		return Inputs{}, engine.WithHint(errors.New("input fail-on: unknown level"), "use error, warning, note or never")
	}
	if strings.ContainsAny(in.SARIFFile, "\x00\r\n") {
		return Inputs{}, engine.WithHint(fmt.Errorf("input sarif-file: not a usable file name"), "give a path such as privscan.sarif")
	}
	if strings.ContainsFunc(in.Category, unicode.IsControl) {
		return Inputs{}, engine.WithHint(fmt.Errorf("input category: contains control characters"), "use a short identifier such as privscan/pr")
	}
	var err error
	if in.ScanPRText, err = boolInput(getenv, EnvScanPRText, "scan-pr-text", true); err != nil {
		return Inputs{}, err
	}
	if in.Annotations, err = boolInput(getenv, EnvAnnotations, "annotations", true); err != nil {
		return Inputs{}, err
	}
	if in.AllowNewMarkers, err = boolInput(getenv, EnvAllowNewMarkers, "allow-new-markers", false); err != nil {
		return Inputs{}, err
	}
	return in, nil
}

// boolInput parses a boolean input as the Actions toolkit's getBooleanInput
// does (the YAML 1.2 core schema spellings); empty means def.
func boolInput(getenv func(string) string, env, name string, def bool) (bool, error) {
	switch strings.TrimSpace(getenv(env)) {
	case "":
		return def, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, engine.WithHint(fmt.Errorf("input %s: not a boolean", name), "use true or false")
}

// checkRev refuses revisions that could be read as an option or that hold
// whitespace or control characters.
func checkRev(rev string) error {
	switch {
	case rev == "":
		return nil
	case len(rev) > maxRevLen:
		return fmt.Errorf("longer than %d bytes", maxRevLen)
	case strings.HasPrefix(rev, "-"):
		return errors.New("starts with '-'")
	case strings.ContainsFunc(rev, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return errors.New("contains whitespace or control characters")
	case strings.Contains(rev, ".."):
		return errors.New("is a range; give base and head separately")
	}
	return nil
}

// quoteInput quotes a short value that GitHub defines (an event name) for
// an error message; user inputs are never quoted.
func quoteInput(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
