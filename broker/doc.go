// Package broker is the only code in privscan that reads the key map, context
// files and catalogs (docs/keymap.md).
//
// # Key map
//
// The key map is a TOML file, by default
// $XDG_CONFIG_HOME/privscan/context-map.toml (~/.config/privscan/ when
// XDG_CONFIG_HOME is unset, empty or not absolute). It holds exactly two
// tables: [keys] maps context keys to Markdown files (path strings) that
// [Broker.LoadContext] returns, and [catalogs] maps catalog keys to catalogs
// that only the scanner reads ([Broker.ReadCatalog], [Broker.OpenCatalog]):
// a path, a list of paths, or a table {files = <path or list>, seal-key =
// <path>}; the reserved name seal-key in [catalogs] names the seal key file
// of every entry without its own. Any other top-level entry, a value of
// another type, an empty path or list, or an empty key is config_invalid. A TOML syntax error is reported with its line and column
// only, never the decoder's text (which quotes the offending line). The map
// is re-read on every call, so edits take effect without a restart; a Broker
// holds no mutable state and is safe for concurrent use.
//
// Paths in the map may be absolute, start with "~/" (HOME as seen through
// [Options.Getenv]), or be relative to the folder that holds the map (the
// folder of the map path as located, not of a symlink's target).
//
// Keys are opaque. They cannot be listed, and a lookup compares the SHA-256
// of the given key with every entry in constant time, so timing does not tell
// how close a guess came. A [catalogs] key given to LoadContext is unknown,
// with exactly the error of a key that does not exist.
//
// # Catalog sources
//
// When no catalog key is given, the catalogs come from the environment if
// PRIVSCAN_CATALOG (the Markdown itself) or PRIVSCAN_CATALOG_FILE (one or
// more files, separated like PATH) is set and non-empty — both combined
// when both are set, PRIVSCAN_CATALOG first — else from the map's
// [catalogs] "default" entry. An explicit key (--catalog-key, an MCP
// catalog_key) skips the environment. A [catalogs] entry may name one file
// or a list of files. The catalogs of one selection are combined
// (catalog.Combine): rule IDs must be unique across them (a duplicate is
// catalog_invalid), each rule's fingerprints are keyed by its own
// catalog's key and the built-in detectors' by the first catalog's.
//
// # File rules
//
// Context files, catalogs and PRIVSCAN_CATALOG_FILE obey the same rules:
//
//   - symlinks are resolved with [filepath.EvalSymlinks], and the resolved
//     name must end in ".md", compared ASCII case-insensitively (".md",
//     ".MD"), or, for catalogs only, ".sealed" (a sealed catalog, made by
//     privscan catalog seal); ".markdown" and anything else is
//     not_markdown;
//   - the resolved path is checked with lstat, then opened with
//     O_RDONLY|O_NONBLOCK|O_NOFOLLOW, so a FIFO never blocks and a symlink
//     swapped in after resolution is refused, and the opened descriptor is
//     checked again with fstat: anything but a regular file (directory,
//     FIFO, device, socket) is not_regular_file;
//   - a file over 64 MiB ([MaxFileSize]) is too_large; at most MaxFileSize+1
//     bytes are read, so a file that grows after fstat is refused too. A
//     sealed catalog may be up to 2 GiB ([MaxSealedSize]): it is mapped
//     and checked (catalog.OpenSealed), never parsed or compiled, with the
//     seal key of the entry's seal-key file, else PRIVSCAN_SEAL_KEY
//     (seal_key_missing without one, seal_key_wrong with another);
//   - a missing file, a dangling symlink, a path through a non-directory, an
//     unreadable file (permission denied) and a symlink loop are all
//     file_missing, each with its own message.
//
// The key map itself obeys the same rules except the ".md" suffix, with a
// 1 MiB limit ([MaxMapSize]); a missing map is config_missing and any other
// failure to read it is config_invalid.
//
// # Errors
//
// Every error returned is an [*Error] with one of the codes config_missing,
// config_invalid, unknown_key, file_missing, not_markdown, not_regular_file,
// too_large, catalog_invalid, seal_key_missing and seal_key_wrong, matched by errors.Is against the ErrXxx
// sentinels. Messages are lowercase and may name the key the caller gave
// (quoted with %q and truncated) and the key map's path; they never contain
// file content, catalog values, map values or other keys of the map. For
// catalog_invalid the catalog package's error (line numbers and reasons
// only) is wrapped. The package never prints or logs.
package broker
