package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var cannedFiles = []string{"testdata/goshmem.json", "testdata/oshmem.json", "testdata/limits.json"}

func cannedSummaries(t *testing.T) map[Key]Summary {
	t.Helper()
	recs, err := readFiles(cannedFiles)
	if err != nil {
		t.Fatal(err)
	}
	return Summarize(recs)
}

func TestParseRecords(t *testing.T) {
	in := strings.Join([]string{
		`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"iters":500,"batch":100,"us":0.03,"future_field":1}`,
		``,
		`--------------------------------------------------------------------------`,
		`{"impl":"oshmem","op":"test_some","size":4,"unit":"elems","npes":2,"na":"no 1.5"}`,
		`{"impl":"oshmem","op":"put_bw","size":8,"unit":"B","npes":2,"iters":200,"batch":10,"us":0.7,"mbps":731.4}`,
	}, "\n")
	recs, skipped, err := ParseRecords(strings.NewReader(in), "canned")
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 1 {
		t.Errorf("skipped = %d, want 1 (the dashes)", skipped)
	}
	if len(recs) != 3 {
		t.Fatalf("got %d records, want 3", len(recs))
	}
	if r := recs[0]; r.Op != "put" || r.Size != 8 || r.NPEs != 2 || r.Batch != 100 || r.US == nil || *r.US != 0.03 || r.MBps != nil {
		t.Errorf("record 0 = %+v", r)
	}
	if r := recs[1]; r.NA != "no 1.5" || r.US != nil || r.Unit != "elems" {
		t.Errorf("record 1 = %+v", r)
	}
	if r := recs[2]; r.MBps == nil || *r.MBps != 731.4 {
		t.Errorf("record 2 mbps = %v", r.MBps)
	}
}

func TestParseRecordsRejects(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"us":`, "canned:2:"},
		{`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2}`, "neither us nor na"},
		{`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"us":1,"na":"x"}`, "both us and na"},
		{`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"us":-1}`, "us is -1"},
		{`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"us":1,"mbps":0}`, "mbps is 0"},
		{`{"impl":"oshmem","op":"put","size":8,"unit":"bytes","npes":2,"us":1}`, `unit "bytes"`},
		{`{"op":"put","size":8,"unit":"B","npes":2,"us":1}`, "no impl"},
		{`{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"us":1} {}`, "text after"},
	} {
		in := `{"impl":"oshmem","op":"get","size":8,"unit":"B","npes":2,"us":1}` + "\n" + tc.line + "\n"
		_, _, err := ParseRecords(strings.NewReader(in), "canned")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRecords(%s): error %v, want one containing %q", tc.line, err, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{7}, 7},
		{[]float64{1, 4, 2.5}, 2.5},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{5, 5, 1, 9, 9}, 5},
	} {
		in := slices.Clone(tc.in)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("Median modified its argument: %v became %v", tc.in, in)
		}
	}
}

func TestSummarize(t *testing.T) {
	sums := cannedSummaries(t)
	put := sums[Key{implOSHMEM, "put", 8}]
	if put.N != 3 || put.US != 2.5 {
		t.Errorf("oshmem put 8: N=%d US=%v, want 3 repetitions with median 2.5", put.N, put.US)
	}
	ts := sums[Key{implOSHMEM, "test_some", 1}]
	if ts.N != 0 || ts.NA != "OpenSHMEM 1.5 routine" {
		t.Errorf("oshmem test_some 1 = %+v, want unavailable", ts)
	}
	bw := sums[Key{implGoshmem, "put_bw", 8}]
	if bw.MBps != 256 || bw.MOps != 0 {
		t.Errorf("goshmem put_bw 8: mbps %v mops %v", bw.MBps, bw.MOps)
	}
	if n := len(sums); n != 18 {
		t.Errorf("%d summaries, want 18 (7 goshmem, 8 oshmem, 3 limit)", n)
	}
}

func TestBuildRows(t *testing.T) {
	rows := BuildRows(cannedSummaries(t), 0)
	var order []string
	for _, r := range rows {
		order = append(order, r.Op)
	}
	want := []string{"put", "put", "put_bw", "atomic_fetch_add", "barrier", "test_some", "reduce_int_sum", "alltoall64"}
	if !slices.Equal(order, want) {
		t.Fatalf("row order %v, want %v", order, want)
	}
	if rows[0].Size != 8 || rows[1].Size != 16 {
		t.Errorf("put sizes %d, %d: want 8 then 16", rows[0].Size, rows[1].Size)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if r, ok := rows[0].Ratio(); !ok || !near(r, 5) {
		t.Errorf("put 8 ratio = %v, %v; want 5 (2.5/0.5)", r, ok)
	}
	if f, ok := rows[2].OfLimit(rows[2].Goshmem); !ok || !near(f, 0.8) || !near(rows[2].Limit.US, 1.6) {
		t.Errorf("put_bw 8: limit %v, goshmem attains %v; want 64 × 0.025 = 1.6 and 0.8", rows[2].Limit.US, f)
	}
	if !near(rows[4].Limit.US, 0.05) {
		t.Errorf("barrier limit %v, want half the 0.1 round trip at 2 PEs", rows[4].Limit.US)
	}
	if _, ok := rows[5].Ratio(); ok {
		t.Error("test_some has a ratio though OSHMEM's is unavailable")
	}
	if rows[3].Limit.US != 0 {
		t.Errorf("atomic_fetch_add has a limit %v; none is defined", rows[3].Limit)
	}
}

func TestLimitForMorePEs(t *testing.T) {
	l := limits{copyUS: map[int64]float64{8 * 4 * 7: 2}, roundTrip: 1, roundTripW: "line RT"}
	if got := l.limitFor("alltoall64", 4, 8); got.US != 2 {
		t.Errorf("alltoall64 of 4 elements at 8 PEs: limit %v, want the copy of 4×8×7 bytes", got)
	}
	if got := l.limitFor("barrier", 0, 8); got.US != 1.5 {
		t.Errorf("barrier at 8 PEs: limit %v, want 3 one-way transfers = 1.5", got)
	}
	if got := l.limitFor("barrier", 0, 5); got.US != 1.5 {
		t.Errorf("barrier at 5 PEs: limit %v, want ceil(log2 5) = 3 one-way transfers", got)
	}
	if got := l.limitFor("put", 16, 2); got.US != 0 {
		t.Errorf("put of an unmeasured size has limit %v", got)
	}
}

func TestLimitsTakeTheFasterRoundTrip(t *testing.T) {
	us := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		counter, flag float64
		want          float64
		what          string
	}{
		{0.5, 0.3, 0.3, "flag RT"},
		{0.2, 0.3, 0.2, "line RT"},
		{0.4, 0, 0.4, "line RT"},
	} {
		recs := []Record{{Impl: implLimit, Op: "cacheline_pingpong", Size: 8, Unit: "B", NPEs: 2, US: us(tc.counter)}}
		if tc.flag > 0 {
			recs = append(recs, Record{Impl: implLimit, Op: "flag_pingpong", Size: 8, Unit: "B", NPEs: 2, US: us(tc.flag)})
		}
		l := limitsFrom(Summarize(recs))
		got := l.limitFor("pingpong", 8, 2)
		if got.US != tc.want || got.What != tc.what {
			t.Errorf("counter %v, flag %v: pingpong limit %+v, want %v %q", tc.counter, tc.flag, got, tc.want, tc.what)
		}
		if b := l.limitFor("barrier", 0, 2); b.US != tc.want/2 || b.What != "1/2 "+tc.what {
			t.Errorf("counter %v, flag %v: barrier limit %+v", tc.counter, tc.flag, b)
		}
	}
}

// tableRow returns the whitespace-separated cells of the first table line starting with prefix.
func tableRow(t *testing.T, table, prefix string) []string {
	t.Helper()
	return strings.Fields(lineStarting(t, table, prefix))
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	info := TableInfo{NPEs: 2, Reps: 3, Notes: []string{"goshmem: not measured"}}
	if err := WriteTable(&b, BuildRows(cannedSummaries(t), 0), info); err != nil {
		t.Fatal(err)
	}
	table := b.String()
	for _, want := range []string{"medians of 3 alternating repetitions", "# goshmem: not measured\n"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for prefix, want := range map[string][]string{
		"put       ":       {"put", "8", "B", "0.5000", "2.500", "5.00", "0.0250", "copy", "5%", "1%"},
		"put_bw":           {"put_bw", "8", "B", "2.000", "4.000", "2.00", "1.600", "64", "copy", "80%", "40%"},
		"atomic_fetch_add": {"atomic_fetch_add", "8", "B", "0.0500", "0.1000", "2.00", "-", "-", "-"},
		"barrier":          {"barrier", "0", "B", "0.2000", "0.5000", "2.50", "0.0500", "1/2", "line", "RT", "25%", "10%"},
		"test_some":        {"test_some", "1", "elems", "0.3000", "n/a", "-", "0.1000", "line", "RT", "33%", "-"},
		"alltoall64":       {"alltoall64", "2", "elems", "-", "0.9000", "-", "0.0300", "copy", "-", "3%"},
	} {
		if got := tableRow(t, table, prefix); !slices.Equal(got, want) {
			t.Errorf("row %q = %q, want %q", prefix, got, want)
		}
	}
	// The header's columns line up with the rows' (µ counts as one column).
	header := tableRow(t, table, "operation")
	if header[3] != "goshmem" || header[4] != "µs" {
		t.Errorf("header %q", header)
	}
	hdr := []rune(lineStarting(t, table, "operation"))
	put := []rune(lineStarting(t, table, "put  "))
	end := len([]rune(string(hdr)[:strings.Index(string(hdr), "OSHMEM µs")+len("OSHMEM µs")]))
	if len(put) < end || string(put[end-5:end]) != "2.500" {
		t.Errorf("the OSHMEM column does not end where its header does:\n%s\n%s", string(hdr), string(put))
	}
}

func lineStarting(t *testing.T, text, prefix string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	t.Fatalf("no line starting %q in\n%s", prefix, text)
	return ""
}

// svgPanel is what the test reads back from the SVG.
type svgPanel struct {
	ID    string `xml:"id,attr"`
	Class string `xml:"class,attr"`
	Lines []struct {
		Impl   string `xml:"data-impl,attr"`
		Op     string `xml:"data-op,attr"`
		Points string `xml:"points,attr"`
		Dash   string `xml:"stroke-dasharray,attr"`
	} `xml:"polyline"`
	Texts []string `xml:"text"`
}

func parseSVG(t *testing.T, svg []byte) []svgPanel {
	t.Helper()
	var doc struct {
		XMLName xml.Name
		Groups  []svgPanel `xml:"g"`
	}
	if err := xml.Unmarshal(svg, &doc); err != nil {
		t.Fatalf("SVG is not well-formed XML: %v", err)
	}
	if doc.XMLName.Local != "svg" {
		t.Fatalf("root element %q, want svg", doc.XMLName.Local)
	}
	return doc.Groups
}

func TestRenderSVG(t *testing.T) {
	panels := parseSVG(t, RenderSVG(cannedSummaries(t), "canned <run> & more"))
	var ids []string
	for _, p := range panels {
		if p.Class == "panel" {
			ids = append(ids, p.ID)
		}
	}
	if want := []string{"panel-rma", "panel-atomics", "panel-sync", "panel-collectives", "panel-alltoall"}; !slices.Equal(ids, want) {
		t.Fatalf("panels %v, want %v", ids, want)
	}
	wantLines := map[string][]string{
		"panel-rma":         {"goshmem/put/2", "oshmem/put/2", "goshmem/put_bw/1", "oshmem/put_bw/1", "limit/copy/2"},
		"panel-atomics":     {"goshmem/atomic_fetch_add/1", "oshmem/atomic_fetch_add/1"},
		"panel-sync":        {"goshmem/barrier/1", "oshmem/barrier/1", "goshmem/test_some/1", "limit/round_trip/2"},
		"panel-collectives": {"goshmem/reduce_int_sum/1", "oshmem/reduce_int_sum/1"},
		"panel-alltoall":    {"oshmem/alltoall64/1"},
	}
	for _, p := range panels {
		var got []string
		for _, l := range p.Lines {
			got = append(got, l.Impl+"/"+l.Op+"/"+strconv.Itoa(len(strings.Fields(l.Points))))
			if want := map[string]string{implGoshmem: "", implOSHMEM: "7 4", implLimit: "2 3"}[l.Impl]; l.Dash != want {
				t.Errorf("%s %s %s: dash %q, want %q", p.ID, l.Impl, l.Op, l.Dash, want)
			}
		}
		if !slices.Equal(got, wantLines[p.ID]) {
			t.Errorf("%s polylines %v, want %v", p.ID, got, wantLines[p.ID])
		}
	}
	// goshmem's put is slower at 16 B (0.6 µs) than at 8 B (0.5): further right and higher up.
	pts := strings.Fields(panels[0].Lines[0].Points)
	var x0, y0, x1, y1 float64
	if _, err := sscan(pts[0], &x0, &y0); err != nil {
		t.Fatal(err)
	}
	if _, err := sscan(pts[1], &x1, &y1); err != nil {
		t.Fatal(err)
	}
	if !(x1 > x0 && y1 < y0) {
		t.Errorf("put points %v: want the 16 B point right of and above the 8 B one", pts)
	}
}

func TestRenderSVGEmptyPanels(t *testing.T) {
	panels := parseSVG(t, RenderSVG(map[Key]Summary{}, "nothing"))
	if len(panels) != 5 {
		t.Fatalf("%d panels, want 5", len(panels))
	}
	for _, p := range panels {
		if len(p.Lines) != 0 || !slices.Contains(p.Texts, "no data") {
			t.Errorf("%s: want no polyline and a \"no data\" note, have %d lines, texts %q", p.ID, len(p.Lines), p.Texts)
		}
	}
}

func TestRunFromJSONIn(t *testing.T) {
	dir := t.TempDir()
	plot, saved := filepath.Join(dir, "p.svg"), filepath.Join(dir, "all.json")
	cfg, err := parseFlags([]string{"--json-in", strings.Join(cannedFiles, ","), "--plot", plot, "--save", saved}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(cfg, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if got := tableRow(t, out.String(), "reduce_int_sum"); got[5] != "2.00" {
		t.Errorf("reduce_int_sum row %q: ratio %q, want 2.00", got, got[5])
	}
	svg, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(parseSVG(t, svg)); n != 5 {
		t.Errorf("plot has %d panels, want 5", n)
	}
	// The saved records re-render to the same table.
	cfg2, err := parseFlags([]string{"--json-in", saved}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out2 bytes.Buffer
	if err := run(cfg2, &out2, io.Discard); err != nil {
		t.Fatal(err)
	}
	if out2.String() != out.String() {
		t.Errorf("re-rendered from --save:\n%s\nwant\n%s", out2.String(), out.String())
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"-m", "8:1K", "-i", "10", "-x", "0", "-f", "-o", "put,get", "--reps", "5", "-n", "4"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"-m", "8:1K", "-i", "10", "-x", "0", "-o", "put,get", "-f"}; !slices.Equal(cfg.benchArgs, want) {
		t.Errorf("suite flags %q, want %q", cfg.benchArgs, want)
	}
	if cfg.reps != 5 || cfg.npes != 4 {
		t.Errorf("reps %d npes %d", cfg.reps, cfg.npes)
	}
	cfg, err = parseFlags([]string{"--algorithms", "--touch", "-o", "reduce_int_sum"}, io.Discard)
	if want := []string{"-o", "reduce_int_sum", "-touch"}; err != nil || !slices.Equal(cfg.benchArgs, want) {
		t.Errorf("--algorithms --touch: suite flags %q (%v), want %q", cfg.benchArgs, err, want)
	}
	for _, bad := range [][]string{{"--reps", "0"}, {"-i", "0"}, {"-x", "-1"}, {"-i", "many"}, {"stray"}, {"--touch"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
}

// TestRunAll runs fake suites: goshmem's fails, the peer prints records. The table must
// still have the peer's column, say why goshmem's is empty, and not rerun the failed side.
func TestRunAll(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "goshmem-runs")
	peer := `printf '%s\n' '{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"iters":5,"batch":100,"us":1.5}' notice; echo "args:$*" >&2`
	cfg := config{
		reps:       3,
		npes:       2,
		goshmemCmd: "echo run >> " + count + "; echo 'package ./bench/osu is not in std' >&2; seq 100 >&2; exit 3",
		peerCmd:    peer,
		benchArgs:  []string{"-o", "put"},
	}
	var stderr bytes.Buffer
	recs, notes, err := runAll(cfg, dir, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want the peer's one per repetition", len(recs))
	}
	for i, r := range recs {
		if r.Impl != implOSHMEM || r.Rep != i+1 {
			t.Errorf("record %d: impl %s rep %d", i, r.Impl, r.Rep)
		}
	}
	if len(notes) > 0 && strings.HasPrefix(notes[len(notes)-1], "load average") {
		notes = notes[:len(notes)-1]
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "goshmem") || !strings.Contains(notes[0], "exit status 3") ||
		!strings.Contains(notes[0], "not in std | 1 | 99 | 100") {
		t.Errorf("notes %q: want one naming goshmem's failure and its stderr", notes)
	}
	if runs, _ := os.ReadFile(count); string(runs) != "run\n" {
		t.Errorf("goshmem ran %q times, want once", runs)
	}
	if !strings.Contains(stderr.String(), "args:--json -o put") {
		t.Errorf("the peer did not get --json and the suite flags; stderr:\n%s", stderr.String())
	}
	var out bytes.Buffer
	if err := WriteTable(&out, BuildRows(Summarize(recs), 0), TableInfo{NPEs: 2, Reps: 3, Notes: notes}); err != nil {
		t.Fatal(err)
	}
	if got := tableRow(t, out.String(), "put"); got[3] != "-" || got[4] != "1.500" {
		t.Errorf("put row %q: want goshmem '-' and OSHMEM 1.500", got)
	}
}

func TestRunnerDropsForeignRecords(t *testing.T) {
	r := &runner{impl: implGoshmem, cmd: `echo '{"impl":"oshmem","op":"put","size":8,"unit":"B","npes":2,"us":1}'`}
	recs, note := r.run(t.TempDir(), 1, io.Discard)
	if len(recs) != 0 || !strings.Contains(note, `not marked impl "goshmem"`) || !r.failed {
		t.Errorf("records %v, note %q, failed %v", recs, note, r.failed)
	}
}

// sscan reads an SVG point "x,y".
func sscan(pt string, x, y *float64) (int, error) {
	return fmt.Sscanf(strings.Replace(pt, ",", " ", 1), "%g %g", x, y)
}
