package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/privscan/privscan/scanner"
)

// Caps on what text and redact read, so that a script piping an endless
// stream (or /dev/zero) into privscan gets an error instead of a hang.
const (
	defaultMaxInput = 4 << 30 // bytes
	defaultMaxTime  = 10 * time.Minute
)

// inputCaps are the --max-input and --max-time flags of text and redact.
type inputCaps struct {
	maxInput byteSize
	maxTime  time.Duration
}

func (c *inputCaps) register(fs *flag.FlagSet) {
	c.maxInput = defaultMaxInput
	c.maxTime = defaultMaxTime
	fs.Var(&c.maxInput, "max-input", "stop with an error after reading `SIZE` of input (e.g. 512MiB, 4GiB)")
	fs.DurationVar(&c.maxTime, "max-time", defaultMaxTime, "stop with an error if the input is not read within `DURATION` (0: no limit)")
}

// byteSize is a flag value: a number of bytes with an optional KiB, MiB or
// GiB suffix (or K, M, G).
type byteSize int64

func (b *byteSize) String() string {
	n := int64(*b)
	for _, u := range []struct {
		s string
		v int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.v && n%u.v == 0 {
			return strconv.FormatInt(n/u.v, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

func (b *byteSize) Set(s string) error {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		s string
		v int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.s) {
			t, mult = strings.TrimSuffix(t, u.s), u.v
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		// The value is not repeated: flag errors never echo what was typed.
		return errors.New("want a positive size such as 512MiB or 4GiB")
	}
	*b = byteSize(n * mult)
	return nil
}

// InputTooLargeError is returned when text or redact read more than
// --max-input.
type inputTooLargeError struct{ limit byteSize }

func (e *inputTooLargeError) Error() string {
	return fmt.Sprintf("the input is larger than --max-input %s and was not read to the end", e.limit.String())
}

// cappedReader fails once more than limit bytes were read.
type cappedReader struct {
	r     io.Reader
	left  int64
	limit byteSize
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left < 0 {
		return 0, &inputTooLargeError{c.limit}
	}
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if c.left < 0 {
		return n, &inputTooLargeError{c.limit}
	}
	return n, err
}

// capInput applies the caps: the returned context ends after --max-time
// (cancel releases it), and the reader (when in is not nil) fails after
// --max-input.
func (c *inputCaps) capInput(ctx context.Context, in io.Reader) (context.Context, context.CancelFunc, io.Reader) {
	cancel := context.CancelFunc(func() {})
	if c.maxTime > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, c.maxTime, errInputTimeout)
	}
	if in == nil {
		return ctx, cancel, nil
	}
	return ctx, cancel, c.reader(in)
}

// reader returns in capped at --max-input.
func (c *inputCaps) reader(in io.Reader) io.Reader {
	return &cappedReader{r: in, left: int64(c.maxInput), limit: c.maxInput}
}

var errInputTimeout = errors.New("the input was not read within --max-time")

// inputError maps the caps' errors to actionable messages.
func inputError(ctx context.Context, err error) error {
	var big *inputTooLargeError
	switch {
	case errors.As(err, &big):
		return withHint(err, "pass a larger --max-input, or split the input")
	case errors.Is(err, context.DeadlineExceeded) && errors.Is(context.Cause(ctx), errInputTimeout):
		return withHint(errInputTimeout, "pass a longer --max-time (0 for none), or check what feeds stdin")
	}
	var long *scanner.LineTooLongError
	if errors.As(err, &long) {
		return withHint(err, "split the line, or scan the file with `privscan scan` or `diff`, which read lines of any length")
	}
	return nil
}
