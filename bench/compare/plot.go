package main

import (
	"bytes"
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The SVG's geometry, in pixels: a grid of panels, two a row.
const (
	panelW, panelH   = 640, 400
	panelCols        = 2
	plotLeft         = 64  // room for the y labels
	plotRight        = 180 // room for the legend
	plotTop          = 34
	plotBottom       = 44
	titleH           = 40
	markerR          = 2.5
	legendLineHeight = 15
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// dashes tells the implementations apart: goshmem solid, OSHMEM dashed, limits dotted.
var dashes = map[string]string{implGoshmem: "", implOSHMEM: "7 4", implLimit: "2 3"}

type point struct{ x, y float64 }

// series is one polyline: an implementation's operation over sizes.
type series struct {
	impl, op, label string
	color           string
	pts             []point
	hline           bool // a constant drawn across the whole panel (pts: two of its value)
}

// writeMarker draws a point: filled for goshmem, hollow for OSHMEM, so that single points
// (atomics) are told apart too.
func writeMarker(b *bytes.Buffer, impl string, x, y float64, color string) {
	fill := color
	if impl == implOSHMEM {
		fill = "white"
	}
	fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s" stroke="%s"/>`, x, y, markerR, fill, color)
}

// plotX is where a size goes on the log axis: barrier's size 0 is drawn at 1.
func plotX(size int64) float64 { return math.Max(float64(size), 1) }

// panelSeries gathers the series of one family from the summaries, ordered by operation
// then implementation; the limit of the family (copy for rma, the cache-line round trip
// for sync) comes last.
func panelSeries(sums map[Key]Summary, family string) []series {
	byKey := map[[2]string][]point{}
	var ops []string
	for k, s := range sums {
		if s.N == 0 || (k.Impl != implGoshmem && k.Impl != implOSHMEM) || familyOf(k.Op) != family {
			continue
		}
		id := [2]string{k.Impl, k.Op}
		byKey[id] = append(byKey[id], point{plotX(k.Size), s.US})
		if !slices.Contains(ops, k.Op) {
			ops = append(ops, k.Op)
		}
	}
	slices.SortFunc(ops, opRank)
	var out []series
	for i, op := range ops {
		for _, impl := range []string{implGoshmem, implOSHMEM} {
			pts := byKey[[2]string{impl, op}]
			if len(pts) == 0 {
				continue
			}
			slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.x, b.x) })
			out = append(out, series{impl: impl, op: op, label: op,
				color: palette[i%len(palette)], pts: pts})
		}
	}
	switch family {
	case "rma":
		var pts []point
		for k, s := range sums {
			if k.Impl == implLimit && k.Op == "copy" && s.N > 0 {
				pts = append(pts, point{plotX(k.Size), s.US})
			}
		}
		if len(pts) > 0 {
			slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.x, b.x) })
			out = append(out, series{impl: implLimit, op: "copy", label: "copy() limit", color: "#444444", pts: pts})
		}
	case "sync":
		lim := limitsFrom(sums)
		if lim.roundTrip > 0 && len(out) > 0 {
			out = append(out, series{impl: implLimit, op: "round_trip", label: "cache-line RT limit",
				color: "#444444", pts: []point{{0, lim.roundTrip}, {0, lim.roundTrip}}, hline: true})
		}
	}
	return out
}

// decades returns the powers of ten that bound the values, at least one decade apart.
func decades(vals []float64) (lo, hi int) {
	if len(vals) == 0 {
		return 0, 1
	}
	mn, mx := slices.Min(vals), slices.Max(vals)
	lo, hi = int(math.Floor(math.Log10(mn))), int(math.Ceil(math.Log10(mx)))
	if hi <= lo {
		lo, hi = lo-1, hi+1
	}
	return lo, hi
}

// tickLabel names 10^e briefly: 1, 10, 100, 1k .. 100M, 0.1, 0.01, 1e-3.
func tickLabel(e int) string {
	switch {
	case e >= 0 && e < 3:
		return fmt.Sprint(int(math.Pow10(e)))
	case e >= 3 && e < 6:
		return fmt.Sprintf("%dk", int(math.Pow10(e-3)))
	case e >= 6 && e < 9:
		return fmt.Sprintf("%dM", int(math.Pow10(e-6)))
	case e == -1:
		return "0.1"
	case e == -2:
		return "0.01"
	}
	return fmt.Sprintf("1e%d", e)
}

// RenderSVG draws latency against size, log-log, one panel per family of operations.
func RenderSVG(sums map[Key]Summary, title string) []byte {
	var b bytes.Buffer
	rows := (len(families) + panelCols - 1) / panelCols
	w, h := panelCols*panelW, titleH+rows*panelH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="26" font-size="16" text-anchor="middle">%s</text>`+"\n", w/2, html.EscapeString(title))
	for i, fam := range families {
		x0, y0 := (i%panelCols)*panelW, titleH+(i/panelCols)*panelH
		writePanel(&b, fam, panelSeries(sums, fam), x0, y0)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

func writePanel(b *bytes.Buffer, family string, ss []series, x0, y0 int) {
	fmt.Fprintf(b, `<g class="panel" id="panel-%s" transform="translate(%d,%d)">`+"\n", family, x0, y0)
	pw, ph := panelW-plotLeft-plotRight, panelH-plotTop-plotBottom
	fmt.Fprintf(b, `<text x="%d" y="20" font-size="13" font-weight="bold">%s</text>`+"\n", plotLeft, family)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", plotLeft, plotTop, pw, ph)
	if len(ss) == 0 {
		fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle" fill="#999">no data</text>`+"\n", plotLeft+pw/2, plotTop+ph/2)
		b.WriteString("</g>\n")
		return
	}
	var xs, ys []float64
	for _, s := range ss {
		for _, p := range s.pts {
			if !s.hline { // a constant spans whatever the other series span
				xs = append(xs, p.x)
			}
			ys = append(ys, p.y)
		}
	}
	xlo, xhi := decades(xs)
	ylo, yhi := decades(ys)
	px := func(x float64) float64 {
		return float64(plotLeft) + (math.Log10(x)-float64(xlo))/float64(xhi-xlo)*float64(pw)
	}
	py := func(y float64) float64 {
		return float64(plotTop+ph) - (math.Log10(y)-float64(ylo))/float64(yhi-ylo)*float64(ph)
	}
	for e := xlo; e <= xhi; e++ {
		x := px(math.Pow10(e))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>`, x, plotTop, x, plotTop+ph)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x, plotTop+ph+14, tickLabel(e))
	}
	for e := ylo; e <= yhi; e++ {
		y := py(math.Pow10(e))
		fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>`, plotLeft, y, plotLeft+pw, y)
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", plotLeft-5, y+4, tickLabel(e))
		if yhi-ylo > 2 || e == yhi {
			continue
		}
		// A narrow range gets 2× and 5× ticks too, so a reader can still place a point.
		for _, m := range []float64{2, 5} {
			v := m * math.Pow10(e)
			y := py(v)
			fmt.Fprintf(b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#f4f4f4"/>`, plotLeft, y, plotLeft+pw, y)
			fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end" fill="#666">%s</text>`+"\n", plotLeft-5, y+4,
				strconv.FormatFloat(v, 'g', 3, 64))
		}
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">size (bytes or elements per PE)</text>`+"\n", plotLeft+pw/2, panelH-8)
	fmt.Fprintf(b, `<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">latency (µs)</text>`+"\n", plotTop+ph/2)
	for _, s := range ss {
		var pts strings.Builder
		for j, p := range s.pts {
			if j > 0 {
				pts.WriteByte(' ')
			}
			x := px(p.x)
			if s.hline {
				x = float64(plotLeft + j*pw) // from the left edge to the right one
			}
			fmt.Fprintf(&pts, "%.1f,%.1f", x, py(p.y))
		}
		dash := ""
		if d := dashes[s.impl]; d != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, d)
		}
		fmt.Fprintf(b, `<polyline class="series" data-impl="%s" data-op="%s" points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n",
			s.impl, html.EscapeString(s.op), pts.String(), s.color, dash)
		if s.impl != implLimit {
			for _, p := range s.pts {
				writeMarker(b, s.impl, px(p.x), py(p.y), s.color)
			}
			b.WriteString("\n")
		}
	}
	writeLegend(b, ss, plotLeft+pw+10)
	b.WriteString("</g>\n")
}

// writeLegend names each operation once by its color, then the line styles: goshmem solid
// with filled points, OSHMEM dashed with hollow ones, and the limits.
func writeLegend(b *bytes.Buffer, ss []series, lx int) {
	type entry struct {
		impl, label, color string
	}
	var entries []entry
	seen := map[string]bool{}
	impls := map[string]bool{}
	for _, s := range ss {
		if s.impl == implLimit {
			continue
		}
		impls[s.impl] = true
		if !seen[s.op] {
			seen[s.op] = true
			entries = append(entries, entry{"", s.op, s.color})
		}
	}
	for _, impl := range []string{implGoshmem, implOSHMEM} {
		if impls[impl] {
			entries = append(entries, entry{impl, map[string]string{implGoshmem: "goshmem", implOSHMEM: "OSHMEM"}[impl], "#000000"})
		}
	}
	for _, s := range ss {
		if s.impl == implLimit {
			entries = append(entries, entry{implLimit, s.label, s.color})
		}
	}
	for i, e := range entries {
		ly := plotTop + 8 + i*legendLineHeight
		if e.impl == "" { // an operation: its color
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="22" height="6" fill="%s"/>`, lx, ly-3, e.color)
		} else {
			dash := ""
			if d := dashes[e.impl]; d != "" {
				dash = fmt.Sprintf(` stroke-dasharray="%s"`, d)
			}
			fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.6"%s/>`, lx, ly, lx+22, ly, e.color, dash)
			if e.impl != implLimit {
				writeMarker(b, e.impl, float64(lx+11), float64(ly), e.color)
			}
		}
		fmt.Fprintf(b, `<text x="%d" y="%d" font-size="10">%s</text>`+"\n", lx+27, ly+4, html.EscapeString(e.label))
	}
}
