package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kafkasim/kafkasim/lessons"
)

// lessonCmd checks lesson files the way make test checks the bundled ones:
// Parse, then Verify (every step run on the core, predictions and tasks
// checked). The language is -lang, else the name of the file's directory
// when it looks like one (lessons/zh/x.md), else en.
func lessonCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lesson", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("lang", "", "language of the files (default: their directory's name if it is en or zh, else en)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "usage: kafkasim lesson [-lang L] FILE...")
		return 2
	}
	code := 0
	for _, f := range fs.Args() {
		src, err := readLesson(f, lessons.MaxLessonBytes)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", f, err)
			code = 2
			continue
		}
		l := *lang
		if l == "" {
			l = "en"
			if d := filepath.Base(filepath.Dir(f)); d == "zh" || d == "en" {
				l = d
			}
		}
		ls, err := lessons.Parse(src, l)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", f, err)
			code = 2
			continue
		}
		if err := lessons.Verify(ls); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", f, err)
			code = max(code, 1)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok: %q, %d steps\n", f, ls.Title, len(ls.Steps))
	}
	return code
}

// readLesson reads a file, refusing one larger than max bytes.
func readLesson(name string, max int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("larger than %d bytes", max)
	}
	return b, nil
}
