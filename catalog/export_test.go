package catalog

// SetScanASM turns the assembly scan loop of m on or off (where there is
// one) and reports whether it runs.
var SetScanASM = (*Matcher).setScanASM
