package scenario

import (
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// parseRestore parses `restore PART/OF DATA`: one part of a cluster
// restored from disk (core.RestoreChunk). kafkasim serve --data-dir
// writes the parts in a room's history at the instant it restored the
// logs, so a replay (a page following the room, an exported .ksim under
// `kafkasim run`) restores the same topics, byte for byte.
func parseRestore(p *lineParser, st *Step) error {
	u := usage["restore"]
	pw, err := p.arg(1, "PART/OF", u)
	if err != nil {
		return err
	}
	a, b, ok := strings.Cut(pw.s, "/")
	if !ok {
		return p.errAt(pw, "bad part %q: want PART/OF, as in 1/3 (usage: %s)", pw.s, u)
	}
	part, err := p.number(word{s: a, off: pw.off}, "part", 1, core.MaxRestoreParts)
	if err != nil {
		return err
	}
	of, err := p.number(word{s: b, off: pw.off + len(a) + 1}, "part count", part, core.MaxRestoreParts)
	if err != nil {
		return err
	}
	dw, err := p.arg(2, "DATA", u)
	if err != nil {
		return err
	}
	if len(dw.s) > core.MaxRestoreChunkBytes {
		return p.errAt(dw, "restore data of %d bytes: at most %d a part", len(dw.s), core.MaxRestoreChunkBytes)
	}
	if err := p.noMore(3, u); err != nil {
		return err
	}
	st.Cmd = core.RestoreChunk{Part: int(part), Of: int(of), Data: dw.s}
	return nil
}

// formatRestore writes a RestoreChunk as parseRestore reads it.
func formatRestore(x core.RestoreChunk) (string, error) {
	return join("restore", strconv.Itoa(x.Part)+"/"+strconv.Itoa(x.Of), x.Data)
}
