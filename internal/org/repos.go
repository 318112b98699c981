package org

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxReposLine bounds one line of a repos file.
const maxReposLine = 64 << 10

// ParseRepos reads a file of clone URLs: one repository a line,
// "URL [size-in-KiB]", blank lines and lines starting with '#' ignored.
// Credentials in a URL are removed (never kept, never printed). Names are
// derived from the URLs and made unique with a "-2", "-3"… suffix. Errors
// name the line number only.
func ParseRepos(r io.Reader) ([]Repo, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxReposLine)
	var repos []Repo
	used := map[string]bool{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) > 2 {
			return nil, fmt.Errorf("repos file line %d: want a URL and an optional size", line)
		}
		clean, err := StripURL(fields[0])
		if err != nil {
			return nil, fmt.Errorf("repos file line %d: %w", line, err)
		}
		var size int64
		if len(fields) == 2 {
			size, err = strconv.ParseInt(fields[1], 10, 64)
			if err != nil || size < 0 {
				return nil, fmt.Errorf("repos file line %d: the size is not a number of KiB", line)
			}
		}
		name := NameFromURL(clean)
		base := name
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d", base, n)
		}
		used[name] = true
		repos = append(repos, Repo{Name: name, URL: clean, Size: size})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the repos file (line %d): a line is too long or unreadable", line+1)
	}
	return repos, nil
}
