package server

import (
	"net/http"

	goqr "github.com/piglig/go-qr"

	"github.com/kafkasim/kafkasim/server/protocol"
)

// qrSVG draws text as a QR code (error correction M: survives a smudged
// projector) in SVG.
func qrSVG(text string) ([]byte, error) {
	q, err := goqr.EncodeText(text, goqr.Medium)
	if err != nil {
		return nil, err
	}
	return q.ToSVGBytes(goqr.NewQrCodeImgConfig(8, 4, goqr.WithOptimalSVG()))
}

// handleQR serves the room's join link as a QR code.
func (s *Server) handleQR(w http.ResponseWriter, r *http.Request, cr *classroom) {
	svg, err := qrSVG(s.info(r, cr).Join)
	if err != nil {
		httpError(w, http.StatusInternalServerError, protocol.ErrBadMessage, err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(svg)
}
