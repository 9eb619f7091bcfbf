package shmem_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// The package documentation answers a newcomer's first questions, and every collective's
// documentation states its buffers' symmetry, its work arrays and its errors.
func TestDocumentation(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	files := []*ast.File{}
	for _, f := range pkgs["shmem"].Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/goshmem/shmem")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# Init and Finalize", "# Symmetric memory", "Go global variables", "NOT symmetric",
		"global and static variables are symmetric", "# Errors", "panics with a message naming the routine",
		"# Goroutines", "# Collectives", "pSync", "pWrk", "docs/ARCHITECTURE.md", "shmemrun"} {
		if !strings.Contains(p.Doc, w) {
			t.Errorf("the package documentation does not say %q", w)
		}
	}
	// Constants show their values, not the engine's names.
	for _, c := range p.Consts {
		for _, spec := range c.Decl.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				if _, ok := v.(*ast.SelectorExpr); ok {
					t.Errorf("constant %s is shown as another package's name", spec.(*ast.ValueSpec).Names[0])
				}
			}
		}
	}
	funcs := p.Funcs
	for _, ty := range p.Types {
		funcs = append(funcs, ty.Funcs...)
		funcs = append(funcs, ty.Methods...)
	}
	n := 0
	for _, f := range funcs {
		params := map[string]bool{}
		for _, fld := range f.Decl.Type.Params.List {
			for _, nm := range fld.Names {
				params[nm.Name] = true
			}
		}
		team := len(f.Decl.Type.Params.List) > 0 && fmtType(f.Decl.Type.Params.List[0].Type) == "Team" && params["dst"]
		if !params["pSync"] && !team {
			continue
		}
		n++
		want := []string{"symmetric", "panic"}
		if params["pSync"] {
			want = append(want, "SyncValue", "not in use by another collective", "no error result")
		}
		if params["pWrk"] {
			want = append(want, "pWrk (at least max(len(src)/2+1, ReduceMinWrkDataSize) elements)")
		}
		if team {
			want = append(want, "error is always nil")
		}
		for _, w := range want {
			if !strings.Contains(strings.Join(strings.Fields(f.Doc), " "), w) {
				t.Errorf("%s's documentation does not say %q", f.Name, w)
			}
		}
	}
	if n < 30 {
		t.Errorf("only %d collectives found", n)
	}
}

func fmtType(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
