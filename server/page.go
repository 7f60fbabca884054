package server

import (
	_ "embed"
	"net/http"
)

// classroomPage is the server's own page for a room: join with a code,
// watch the event stream, answer predictions; with the token, drive the
// cluster, step a lesson, open predictions and see the answers. It needs
// no WebAssembly; the browser app's live mode is the full picture.
//
//go:embed web/classroom.html
var classroomPage []byte

func (s *Server) handleClassroom(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:")
	w.Write(classroomPage)
}
