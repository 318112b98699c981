package catalog

import "syscall"

// smallPages asks the kernel not to back b with transparent huge pages
// (where they are on for every mapping): the decrypted tables are written
// a 4 KiB page at a time, wherever lookups land.
func smallPages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_NOHUGEPAGE) }
