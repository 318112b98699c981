//go:build !amd64 || purego

package catalog

// SetScanASM reports false: there is no assembly scan loop here.
func SetScanASM(*Matcher, bool) bool { return false }
