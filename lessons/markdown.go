package lessons

import (
	"bytes"
	"fmt"
	"html"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// KindBlock is the goldmark node kind of a ```ksim block.
var KindBlock = ast.NewNodeKind("KsimBlock")

// Block is a ```ksim fenced block after the Extension's transformer has
// replaced the FencedCodeBlock: its step kind (from the info string), its
// body, and the 1-based line of its opening fence in the parsed source.
// Err is set when the info string names no step kind.
type Block struct {
	ast.BaseBlock
	StepKind Kind
	Body     string
	Line     int
	Err      error
}

// Kind implements ast.Node.
func (b *Block) Kind() ast.NodeKind { return KindBlock }

// Dump implements ast.Node.
func (b *Block) Dump(source []byte, level int) {
	ast.DumpHelper(b, source, level, map[string]string{"StepKind": string(b.StepKind)}, nil)
}

// Extension is the goldmark extension for ```ksim blocks: a transformer
// that turns each fenced block whose info string starts with "ksim" into a
// *Block, and a renderer that writes a Block as
// <div class="ksim-step" data-kind="KIND"><pre><code>BODY</code></pre></div>
// (a static view; the lesson pane runs the steps instead).
var Extension goldmark.Extender = ksimExtension{}

type ksimExtension struct{}

func (ksimExtension) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(transformer{}, 100)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(blockRenderer{}, 100)))
}

type transformer struct{}

// Transform replaces every ksim FencedCodeBlock, at any depth.
func (transformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	var found []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if fc, ok := n.(*ast.FencedCodeBlock); ok && entering && fc.Info != nil {
			if f := strings.Fields(string(fc.Info.Segment.Value(src))); len(f) > 0 && f[0] == "ksim" {
				found = append(found, fc)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, fc := range found {
		info := strings.Fields(string(fc.Info.Segment.Value(src)))
		b := &Block{StepKind: Run, Line: 1 + bytes.Count(src[:fc.Info.Segment.Start], []byte("\n"))}
		if len(info) > 1 {
			b.StepKind = Kind(info[1])
		}
		if (b.StepKind != Run && b.StepKind != Predict && b.StepKind != Act) || len(info) > 2 {
			b.Err = &Error{Line: b.Line, Msg: fmt.Sprintf("a ksim block's info string is `ksim`, `ksim run`, `ksim predict` or `ksim act`, got %q", strings.Join(info, " "))}
		}
		var body strings.Builder
		for i := 0; i < fc.Lines().Len(); i++ {
			seg := fc.Lines().At(i)
			body.Write(seg.Value(src))
		}
		b.Body = body.String()
		fc.Parent().ReplaceChild(fc.Parent(), fc, b)
	}
}

type blockRenderer struct{}

func (blockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindBlock, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			b := n.(*Block)
			fmt.Fprintf(w, "<div class=\"ksim-step\" data-kind=\"%s\"><pre><code>%s</code></pre></div>\n",
				html.EscapeString(string(b.StepKind)), html.EscapeString(b.Body))
		}
		return ast.WalkSkipChildren, nil
	})
}

// markdown is the converter lessons use: CommonMark plus the ksim
// extension, and CJK line breaking (a line break between two Chinese
// characters is no space, as Chinese is written; between a Latin word and
// a Chinese one it stays a space). Raw HTML is not rendered and dangerous
// link schemes are dropped (goldmark's defaults), so a lesson opened from
// a URL cannot run script in the page.
var markdown = goldmark.New(goldmark.WithExtensions(Extension,
	extension.NewCJK(extension.WithEastAsianLineBreaks(extension.EastAsianLineBreaksSimple))))

// inline renders a directive's text as inline Markdown (no <p>).
func inline(s string) string {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(s), &buf); err != nil {
		return html.EscapeString(s)
	}
	out := strings.TrimSpace(buf.String())
	if strings.HasPrefix(out, "<p>") && strings.HasSuffix(out, "</p>") && strings.Count(out, "<p>") == 1 {
		out = out[len("<p>") : len(out)-len("</p>")]
	}
	return out
}

// sections parses a Markdown body and splits it at the top-level ksim
// blocks: it returns each block with the HTML above it, and the HTML after
// the last one. lineOff is added to every line number (the front matter's
// lines).
func sections(body []byte, lineOff int) (blocks []*Block, above []string, outro string, err error) {
	doc := markdown.Parser().Parse(text.NewReader(body))
	var nested error
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*Block); ok && entering {
			b.Line += lineOff
			if b.Err != nil {
				b.Err.(*Error).Line = b.Line
			}
			if n.Parent() != doc && nested == nil {
				nested = &Error{Line: b.Line, Msg: "a ksim block must be at the top level (not inside a list or a quote)"}
			}
		}
		return ast.WalkContinue, nil
	})
	if nested != nil {
		return nil, nil, "", nested
	}
	part := ast.NewDocument()
	render := func() (string, error) {
		var buf bytes.Buffer
		if err := markdown.Renderer().Render(&buf, body, part); err != nil {
			return "", err
		}
		part = ast.NewDocument()
		return buf.String(), nil
	}
	for n := doc.FirstChild(); n != nil; {
		next := n.NextSibling()
		if b, ok := n.(*Block); ok {
			if b.Err != nil {
				return nil, nil, "", b.Err
			}
			h, err := render()
			if err != nil {
				return nil, nil, "", err
			}
			blocks, above = append(blocks, b), append(above, h)
		} else {
			doc.RemoveChild(doc, n)
			part.AppendChild(part, n)
		}
		n = next
	}
	outro, err = render()
	return blocks, above, outro, err
}
