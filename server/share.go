package server

import (
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// shareIDLen is the length of a share id: 10 base32 characters of the
// scenario's SHA-256 (50 bits), so the same scenario always gets the same
// id and a link cannot be guessed from another.
const shareIDLen = 10

// shareStore keeps shared scenarios by id, bounded in count and bytes
// (the oldest go first), in memory and, with a directory, on disk.
type shareStore struct {
	mu    sync.Mutex
	lim   Limits
	dir   string
	byID  map[string]string
	order []string // oldest first
	bytes int
}

func newShareStore(lim Limits, dir string) (*shareStore, error) {
	st := &shareStore{lim: lim, dir: dir, byID: map[string]string{}}
	if dir == "" {
		return st, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".ksim")
		if !ok || !validShareID(id) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil && len(b) <= lim.MaxShareBytes {
			st.keep(id, string(b))
		}
	}
	return st, nil
}

func shareID(text string) string {
	sum := sha256.Sum256([]byte(text))
	return strings.ToLower(base32.StdEncoding.EncodeToString(sum[:]))[:shareIDLen]
}

func validShareID(id string) bool {
	if len(id) != shareIDLen {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// put stores text (a scenario that parses) and returns its id.
func (st *shareStore) put(text string) (string, error) {
	if len(text) > st.lim.MaxShareBytes {
		return "", errors.New("scenario too large to share")
	}
	if _, err := scenario.Parse(text); err != nil {
		return "", err
	}
	id := shareID(text)
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.byID[id]; ok {
		return id, nil
	}
	if st.dir != "" {
		if err := os.WriteFile(filepath.Join(st.dir, id+".ksim"), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	st.keep(id, text)
	return id, nil
}

// keep adds an entry and drops the oldest past the limits (st.mu held or
// not yet shared).
func (st *shareStore) keep(id, text string) {
	st.byID[id] = text
	st.order = append(st.order, id)
	st.bytes += len(text)
	for len(st.order) > 1 && (len(st.order) > st.lim.MaxShares || st.bytes > st.lim.MaxShareTotal) {
		old := st.order[0]
		st.order = st.order[1:]
		st.bytes -= len(st.byID[old])
		delete(st.byID, old)
		if st.dir != "" {
			os.Remove(filepath.Join(st.dir, old+".ksim"))
		}
	}
}

func (st *shareStore) get(id string) (string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t, ok := st.byID[id]
	return t, ok
}

// handleShare stores the body (a .ksim) and returns its short id.
func (s *Server) handleShare(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(s.lim.MaxShareBytes)))
	if err != nil {
		httpError(w, http.StatusRequestEntityTooLarge, protocol.ErrTooLarge, "a shared scenario is at most "+itoa(int64(s.lim.MaxShareBytes))+" bytes")
		return
	}
	id, err := s.shares.put(string(body))
	var se *scenario.Error
	switch {
	case errors.As(err, &se):
		httpError(w, http.StatusBadRequest, protocol.ErrParse, se.Error())
		return
	case err != nil:
		httpError(w, http.StatusBadRequest, protocol.ErrBadMessage, err.Error())
		return
	}
	b := s.base(r)
	writeJSONStatus(w, http.StatusCreated, protocol.Share{ID: id, URL: b + "/api/share/" + id, App: b + "/?share=" + id})
}

// handleShared serves a shared scenario back.
func (s *Server) handleShared(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSuffix(r.PathValue("id"), ".ksim")
	text, ok := s.shares.get(id)
	if !validShareID(id) || !ok {
		httpError(w, http.StatusNotFound, protocol.ErrClosed, "no shared scenario "+id)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable") // an id names one content
	io.WriteString(w, text)
}
