package session

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// MaxShareLink is the longest fragment a share link may have; a longer
// session is shared as a .ksim file instead (chat apps and QR codes cut
// long links).
const MaxShareLink = 8 << 10

// Share is what a share link carries: the scenario text and the moment to
// open it at.
type Share struct {
	Script string
	At     int64
}

// EncodeShare renders a share link fragment (without '#'):
// ksim=<deflate+base64url of the script>&t=<virtual ms>.
func EncodeShare(sh Share) (string, error) {
	enc, err := EncodeShareScript(sh.Script)
	if err != nil {
		return "", err
	}
	return ShareAt(enc, sh.At), nil
}

// EncodeShareScript is the part of a share fragment that depends on the
// script alone ("ksim=..."), for callers that link the same script at
// many moments: ShareAt(EncodeShareScript(s), at) == EncodeShare(Share{s, at}).
func EncodeShareScript(script string) (string, error) {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		return "", err
	}
	if _, err := io.WriteString(w, script); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	return "ksim=" + base64.RawURLEncoding.EncodeToString(buf.Bytes()), nil
}

// ShareAt completes an EncodeShareScript part with the moment at.
func ShareAt(encodedScript string, at int64) string {
	return encodedScript + "&t=" + strconv.FormatInt(at, 10)
}

// DecodeShare parses a fragment made by EncodeShare (a leading '#' is
// allowed). The script is bounded by scenario.MaxScriptBytes.
func DecodeShare(fragment string) (Share, error) {
	fragment = strings.TrimPrefix(fragment, "#")
	if len(fragment) > 4*scenario.MaxScriptBytes {
		return Share{}, fmt.Errorf("share link too long")
	}
	q, err := url.ParseQuery(fragment)
	if err != nil {
		return Share{}, fmt.Errorf("bad share link: %v", err)
	}
	enc := q.Get("ksim")
	if enc == "" {
		return Share{}, fmt.Errorf("bad share link: no ksim= part")
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return Share{}, fmt.Errorf("bad share link: the scenario is not base64url: %v", err)
	}
	r := flate.NewReader(bytes.NewReader(raw))
	defer r.Close()
	text, err := io.ReadAll(io.LimitReader(r, scenario.MaxScriptBytes+1))
	if err != nil {
		return Share{}, fmt.Errorf("bad share link: the scenario does not inflate: %v", err)
	}
	if len(text) > scenario.MaxScriptBytes {
		return Share{}, fmt.Errorf("bad share link: the scenario is over %d bytes", scenario.MaxScriptBytes)
	}
	sh := Share{Script: string(text)}
	if t := q.Get("t"); t != "" {
		sh.At, err = strconv.ParseInt(t, 10, 64)
		if err != nil || sh.At < 0 {
			return Share{}, fmt.Errorf("bad share link: t=%q is not a time in ms", t)
		}
	}
	return sh, nil
}
