package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/lessons"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// A teacher's own lesson in a room. The teacher puts a lesson file
// (Markdown, docs/lessons.md) with the room's token; the server parses it
// with the parser the bundled lessons are built with (package lessons:
// goldmark, raw HTML left out, every scenario line and directive checked)
// and serves the parsed lesson, whose narration is that parser's HTML, to
// every page in the room. The teacher's page steps it as it steps a
// bundled lesson, and a `lesson` message naming the file's version makes
// the students' pages show its steps. A file that does not parse changes
// nothing and is answered with its line.

// roomLesson is a room's uploaded lesson (cr.mu guards the pointer; the
// value never changes once stored).
type roomLesson struct {
	file  int64  // its version in the room: 1, 2, ... one per upload
	id    string // the lesson's id (its front matter)
	steps int
	data  []byte // the parsed lesson as JSON (lessons.Lesson)
}

// handlePutLesson stores the body, a lesson file, as the room's lesson.
// It needs the token; ?lang= is the file's language (default en).
func (s *Server) handlePutLesson(w http.ResponseWriter, r *http.Request, cr *classroom) {
	if !cr.authorized(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) {
		httpError(w, http.StatusForbidden, protocol.ErrForbidden, "a room's lesson file needs its control token (Authorization: Bearer TOKEN)")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(lessons.MaxLessonBytes)))
	if err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, protocol.ErrTooLarge, "a lesson file is at most "+itoa(int64(lessons.MaxLessonBytes))+" bytes")
		return
	}
	lang := r.URL.Query().Get("lang")
	if lang == "" {
		lang = "en"
	}
	l, err := lessons.Parse(body, lang)
	var le *lessons.Error
	switch {
	case errors.As(err, &le):
		httpError(w, http.StatusBadRequest, protocol.ErrParse, le.Error())
		return
	case err != nil:
		httpError(w, http.StatusBadRequest, protocol.ErrBadMessage, err.Error())
		return
	}
	data, err := json.Marshal(l)
	if err != nil {
		httpError(w, http.StatusInternalServerError, protocol.ErrBadMessage, err.Error())
		return
	}
	cr.mu.Lock()
	cr.fileSeq++
	rl := &roomLesson{file: cr.fileSeq, id: l.ID, steps: len(l.Steps), data: data}
	cr.file = rl
	cr.mu.Unlock()
	s.logf("room %s: lesson file %d (%s, %d steps)", cr.code, rl.file, l.ID, rl.steps)
	writeJSONStatus(w, http.StatusCreated, protocol.LessonFile{File: rl.file, ID: rl.id, Title: l.Title, Steps: rl.steps, Lesson: data})
}

// handleGetLesson serves the room's lesson file, parsed; ?file=N asks for
// that version (404 once another replaced it).
func (s *Server) handleGetLesson(w http.ResponseWriter, r *http.Request, cr *classroom) {
	cr.mu.Lock()
	rl := cr.file
	cr.mu.Unlock()
	if rl == nil {
		httpError(w, http.StatusNotFound, protocol.ErrClosed, "room "+cr.code+" has no lesson file")
		return
	}
	if v := r.URL.Query().Get("file"); v != "" && v != strconv.FormatInt(rl.file, 10) {
		httpError(w, http.StatusNotFound, protocol.ErrClosed, "lesson file "+v+" of room "+cr.code+" was replaced by file "+itoa(rl.file))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Kafkasim-Lesson-File", strconv.FormatInt(rl.file, 10))
	w.Write(rl.data)
}

// checkLessonFile checks a lesson step that names the room's lesson file
// (l.File > 0): the file must be the room's current one, and the step one
// of its steps. cr.mu held.
func (cr *classroom) checkLessonFile(l *protocol.Lesson) error {
	if l.File == 0 {
		return nil
	}
	rl := cr.file
	switch {
	case rl == nil:
		return errors.New("lesson: the room has no lesson file (PUT /api/rooms/CODE/lesson first)")
	case l.File != rl.file:
		return errors.New("lesson: file " + itoa(l.File) + " is not the room's lesson file (" + itoa(rl.file) + ")")
	case l.Lesson != rl.id:
		return errors.New("lesson: the room's lesson file is " + strconv.Quote(rl.id) + ", not " + strconv.Quote(l.Lesson))
	case l.Step >= rl.steps:
		return errors.New("lesson: step " + itoa(int64(l.Step)) + " is past the file's " + itoa(int64(rl.steps)) + " steps")
	}
	l.Steps = rl.steps
	return nil
}
