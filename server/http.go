package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /api/info", s.handleInfo)
	m.HandleFunc("POST /api/rooms", s.handleCreate)
	m.HandleFunc("GET /api/rooms/{code}", s.withRoom(s.handleRoomInfo))
	m.HandleFunc("DELETE /api/rooms/{code}", s.withRoom(s.handleDelete))
	m.HandleFunc("GET /api/rooms/{code}/ws", s.withRoom(s.serveWS))
	m.HandleFunc("GET /api/rooms/{code}/history.ksim", s.withRoom(s.handleHistory))
	m.HandleFunc("GET /api/rooms/{code}/snapshot", s.withRoom(s.handleSnapshot))
	m.HandleFunc("GET /api/rooms/{code}/qr.svg", s.withRoom(s.handleQR))
	m.HandleFunc("PUT /api/rooms/{code}/lesson", s.withRoom(s.handlePutLesson))
	m.HandleFunc("GET /api/rooms/{code}/lesson", s.withRoom(s.handleGetLesson))
	m.HandleFunc("POST /api/share", s.handleShare)
	m.HandleFunc("GET /api/share/{id}", s.handleShared)
	m.HandleFunc("GET /classroom", s.handleClassroom)
	m.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok\n") })
	if s.cfg.App != nil {
		m.Handle("/", s.cfg.App)
	} else {
		m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			target := "/classroom"
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			http.Redirect(w, r, target, http.StatusFound)
		})
	}
	s.mux = m
}

// httpError writes a JSON error in the protocol's Error shape.
func httpError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(protocol.Error{Type: protocol.TError, Code: code, Message: msg})
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) withRoom(h func(http.ResponseWriter, *http.Request, *classroom)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cr := s.lookup(r.PathValue("code"))
		if cr == nil {
			httpError(w, http.StatusNotFound, protocol.ErrClosed, "no room with code "+r.PathValue("code"))
			return
		}
		h(w, r, cr)
	}
}

// base is the scheme://host the request reached, or Config.PublicURL.
func (s *Server) base(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimRight(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) info(r *http.Request, cr *classroom) protocol.RoomInfo {
	b := s.base(r)
	ws := "ws" + strings.TrimPrefix(b, "http") + "/api/rooms/" + cr.code + "/ws"
	st := cr.room.Stats()
	// Students join in the app (its live mode) when the server has it,
	// else on the server's own classroom page.
	join := b + "/?room=" + url.QueryEscape(cr.code)
	if s.cfg.App == nil {
		join = b + "/classroom?room=" + url.QueryEscape(cr.code)
	}
	return protocol.RoomInfo{
		Code: cr.code, Scenario: cr.room.Name(), Join: join,
		QR: b + "/api/rooms/" + cr.code + "/qr.svg", WS: ws, Protocol: protocol.Version,
		Clients: int(cr.clients.Load()), Drivers: int(cr.drivers.Load()), Now: st.Now, Gen: st.Gen, Speed: cr.room.Speed(),
		Lagging: st.Lagging, Resyncs: st.Resyncs, Frames: st.Frames,
	}
}

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.rooms)
	s.mu.Unlock()
	writeJSON(w, map[string]any{"protocol": protocol.Version, "defaultRoom": s.def.code, "rooms": n, "maxRooms": s.lim.MaxRooms, "limits": s.def.limits()})
}

// handleCreate makes a room for a teacher: its code, token and links.
func (s *Server) handleCreate(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.lim.MaxMessageBytes)))
	if err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, protocol.ErrTooLarge, "the body is over "+itoa(int64(s.lim.MaxMessageBytes))+" bytes")
		return
	}
	var req protocol.CreateRoom
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if len(strings.TrimSpace(string(body))) > 0 {
			if err := dec.Decode(&req); err != nil {
				httpError(w, http.StatusBadRequest, protocol.ErrBadJSON, "malformed JSON: "+err.Error())
				return
			}
		}
	} else {
		req.Scenario = string(body)
	}
	if req.Name == "" {
		req.Name = "room"
		if req.Scenario != "" {
			req.Name = "scenario"
		}
	}
	speed := 1.0
	if req.Speed != nil {
		speed = *req.Speed
	}
	cr, err := s.createRoom(req.Name, req.Scenario, speed, req.Paused || speed == 0, false)
	var se *scenario.Error
	switch {
	case errors.Is(err, errTooManyRooms):
		httpError(w, http.StatusServiceUnavailable, protocol.ErrLimit, err.Error()+" (at most "+itoa(int64(s.lim.MaxRooms))+")")
		return
	case errors.As(err, &se):
		httpError(w, http.StatusBadRequest, protocol.ErrParse, se.Error())
		return
	case err != nil:
		httpError(w, http.StatusBadRequest, protocol.ErrBadMessage, err.Error())
		return
	}
	s.logf("room %s created (%s)", cr.code, req.Name)
	info := s.info(r, cr)
	info.Token = cr.token
	writeJSONStatus(w, http.StatusCreated, info)
}

func (s *Server) handleRoomInfo(w http.ResponseWriter, r *http.Request, cr *classroom) {
	writeJSON(w, s.info(r, cr))
}

// handleDelete closes a room; it needs the token (Authorization: Bearer).
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, cr *classroom) {
	if !cr.authorized(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) {
		httpError(w, http.StatusForbidden, protocol.ErrForbidden, "closing a room needs its control token (Authorization: Bearer TOKEN)")
		return
	}
	if err := s.closeRoom(cr); err != nil {
		httpError(w, http.StatusBadRequest, protocol.ErrBadMessage, err.Error())
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleHistory exports the room's history as a .ksim (what a fork
// replays).
func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request, cr *classroom) {
	h, err := cr.room.History(r.Context())
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, protocol.ErrClosed, err.Error())
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="room-`+cr.code+`.ksim"`)
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, h.Ksim)
}

func (s *Server) handleSnapshot(w http.ResponseWriter, r *http.Request, cr *classroom) {
	f, err := cr.room.Snapshot(r.Context(), "request", 0)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, protocol.ErrClosed, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(f.Data)
}

// checkOrigin lets a websocket in when it comes from no page (a program),
// from the server's own pages, or from an allowed origin.
func (s *Server) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, a := range s.cfg.AllowOrigins {
		if a == "*" || strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return true
		}
	}
	return false
}
