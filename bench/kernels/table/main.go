// Command table turns the outputs of bench/kernels/run.sh (the C program's lines and
// `go test -bench` lines) into the markdown tables of bench/KERNELS.md: medians, every
// path beside gcc -O3 -march=native and copy(), and the targets checked.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
)

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func lines(path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	return out
}

var sizes = []string{"4KiB", "256KiB", "16MiB"}
var paths = []string{"generic", "avx2", "avx512", "neon"}

func main() {
	cpath := flag.String("c", "", "output of combine.c")
	gopath := flag.String("go", "", "output of go test -bench")
	flag.Parse()
	log.SetFlags(0)

	// C: "<type> <op> <size> <MB/s>", "copy <size> <MB/s>", "strided32 ds=2,ss=2 <size> <MB/s>".
	cs := map[string][]float64{}
	for _, f := range lines(*cpath) {
		v, _ := strconv.ParseFloat(f[len(f)-1], 64)
		k := strings.Join(f[:len(f)-1], " ")
		cs[k] = append(cs[k], v)
	}
	c := map[string]float64{}
	for k, v := range cs {
		c[k] = median(v)
	}
	// Go: BenchmarkCombineInt32/sum/4KiB/avx512-2  N  x ns/op  y MB/s
	g := map[string][]float64{}
	var order []string
	for _, f := range lines(*gopath) {
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		for i := 1; i < len(f); i++ {
			unit := f[i]
			if unit != "MB/s" && !(unit == "ns/op" && strings.Contains(name, "Small")) {
				continue
			}
			v, _ := strconv.ParseFloat(f[i-1], 64)
			key := name + " " + unit
			if _, ok := g[key]; !ok {
				order = append(order, key)
			}
			g[key] = append(g[key], v)
		}
	}
	med := func(name string) float64 { return median(g[name+" MB/s"]) }

	have := map[string]bool{}
	for _, p := range paths {
		for k := range g {
			if strings.Contains(k, "/"+p+" ") {
				have[p] = true
			}
		}
	}
	var ps []string
	for _, p := range paths {
		if have[p] {
			ps = append(ps, p)
		}
	}

	cp := map[string]float64{}
	for _, s := range sizes {
		cp[s] = med("BenchmarkCopy/" + s)
	}
	fmt.Println("### Combine: dst[i] = op(dst[i], src[i]), MB/s of dst (medians)")
	fmt.Println()
	fmt.Println("Ratios: avx512/gcc (target >= 0.8), avx512/generic (target >= 8), avx2/generic (target >= 6);")
	fmt.Println("at 16MiB, bytes moved (3 per dst byte) over copy()'s (2 per byte) (target >= 0.9).")
	fmt.Println()
	hdr := "| type | op | size |"
	sep := "|---|---|---|"
	for _, p := range ps {
		hdr += " " + p + " |"
		sep += "---:|"
	}
	hdr += " gcc -O3 | copy() | avx512/gcc | avx512/generic | avx2/generic | moved/copy |"
	sep += "---:|---:|---:|---:|---:|---:|"
	fmt.Println(hdr)
	fmt.Println(sep)
	seen := map[string]bool{}
	for _, k := range order {
		if !strings.HasPrefix(k, "BenchmarkCombine") || strings.Contains(k, "Small") {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(strings.Fields(k)[0], "BenchmarkCombine"), "/")
		typ, op, size := strings.ToLower(parts[0]), parts[1], parts[2]
		row := typ + "/" + op + "/" + size
		if seen[row] {
			continue
		}
		seen[row] = true
		base := "BenchmarkCombine" + parts[0] + "/" + op + "/" + size + "/"
		line := fmt.Sprintf("| %s | %s | %s |", typ, op, size)
		for _, p := range ps {
			line += fmt.Sprintf(" %.0f |", med(base+p))
		}
		gcc := c[typ+" "+op+" "+size]
		gen, a2, a5 := med(base+"generic"), med(base+"avx2"), med(base+"avx512")
		ratio := func(x, y float64) string {
			if x == 0 || y == 0 {
				return "–"
			}
			return fmt.Sprintf("%.2f", x/y)
		}
		best := a5
		if best == 0 {
			best = med(base + "neon")
		}
		moved := "–"
		if size == "16MiB" && cp[size] > 0 {
			moved = fmt.Sprintf("%.2f", 3*best/(2*cp[size]))
		}
		gccs := "–"
		if gcc > 0 {
			gccs = fmt.Sprintf("%.0f", gcc)
		}
		line += fmt.Sprintf(" %s | %.0f | %s | %s | %s | %s |", gccs, cp[size], ratio(a5, gcc), ratio(a5, gen), ratio(a2, gen), moved)
		fmt.Println(line)
	}

	fmt.Println()
	fmt.Println("### Strided copy: MB/s of elements moved (medians); target at stride 2, 4KiB: >= 4x the Go loop")
	fmt.Println()
	hdr = "| elem | strides | size | Go loop |"
	sep = "|---|---|---|---:|"
	for _, p := range ps {
		hdr += " " + p + " |"
		sep += "---:|"
	}
	hdr += " gcc -O3 | best/Go loop |"
	sep += "---:|---:|"
	fmt.Println(hdr)
	fmt.Println(sep)
	seen = map[string]bool{}
	for _, k := range order {
		if !strings.HasPrefix(k, "BenchmarkStrided/") {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(strings.Fields(k)[0], "BenchmarkStrided/"), "/")
		row := parts[0] + "/" + parts[1] + "/" + parts[2]
		if seen[row] {
			continue
		}
		seen[row] = true
		base := "BenchmarkStrided/" + row + "/"
		gl := med(base + "goloop")
		line := fmt.Sprintf("| %s-bit | %s | %s | %.0f |", parts[0], parts[1], parts[2], gl)
		best := 0.0
		for _, p := range ps {
			v := med(base + p)
			best = max(best, v)
			line += fmt.Sprintf(" %.0f |", v)
		}
		gcc := "–"
		if v := c["strided"+parts[0]+" "+parts[1]+" "+parts[2]]; v > 0 {
			gcc = fmt.Sprintf("%.0f", v)
		}
		line += fmt.Sprintf(" %s | %.2f |", gcc, best/gl)
		fmt.Println(line)
	}

	fmt.Println()
	fmt.Println("### Dispatch: Combine(Sum, x, y) on one int64 (ns/op, medians)")
	fmt.Println()
	fmt.Println("| path | ns/op |")
	fmt.Println("|---|---:|")
	for _, p := range ps {
		fmt.Printf("| %s | %.1f |\n", p, median(g["BenchmarkCombineSmall/"+p+" ns/op"]))
	}
	fmt.Println()
	fmt.Println("copy() for reference (MB/s):", fmt.Sprintf("4KiB %.0f, 256KiB %.0f, 16MiB %.0f; memcpy in C: %.0f, %.0f, %.0f",
		cp["4KiB"], cp["256KiB"], cp["16MiB"], c["copy 4KiB"], c["copy 256KiB"], c["copy 16MiB"]))
}
