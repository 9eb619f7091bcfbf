package main

import (
	"fmt"
	"strings"

	"github.com/goshmem/shmem/gen/tables"
)

// CType is one C type of the OpenSHMEM tables, by its TYPENAME.
type CType struct {
	Name  string      // TYPENAME: "longlong"
	C     string      // C type: "long long"
	Go    string      // the Go type it maps onto ("" for long double, which Go lacks)
	TI    string      // C expression of the Go type's index in tables.Types
	Size  int         // bytes on LP64
	Kind  tables.Kind // arithmetic kind
	Basic bool        // a C basic type, not a typedef: a key of the _Generic selections
}

// cOnly are the C types of the spec's tables that gen/tables does not list: long double,
// which has no Go type (its reductions are C code in cabi/longdouble.c), and plain char,
// whose signedness is the target's (CHAR_MIN decides its Go type in C).
var cOnly = []CType{
	{Name: "char", C: "char", Size: 1, Kind: tables.Signed, Basic: true},
	{Name: "longdouble", C: "long double", Size: 16, Kind: tables.Float, Basic: true},
}

// basicC are the C types of tables.Types that are basic types rather than typedefs.
var basicC = map[string]bool{"float": true, "double": true, "float _Complex": true, "double _Complex": true}

// typeIndex is the position of each Go type in tables.Types: the kernels' type index, which
// cabi's dispatch tables use.
func typeIndex() map[string]int {
	m := map[string]int{}
	for i, t := range tables.Types {
		m[t.Go] = i
	}
	return m
}

// cTypes resolves every TYPENAME: the rows of tables.Types that have one, tables.CTypes,
// and cOnly.
func cTypes() (map[string]CType, error) {
	ti := typeIndex()
	byGo := map[string]tables.Type{}
	for _, t := range tables.Types {
		byGo[t.Go] = t
	}
	m := map[string]CType{}
	add := func(c CType) error {
		if _, dup := m[c.Name]; dup {
			return fmt.Errorf("TYPENAME %s is listed twice", c.Name)
		}
		m[c.Name] = c
		return nil
	}
	for _, t := range tables.Types {
		if t.TypeName == "" {
			continue
		}
		c := CType{Name: t.TypeName, C: t.C, Go: t.Go, TI: fmt.Sprint(ti[t.Go]), Size: t.Size, Kind: t.Kind, Basic: basicC[t.C]}
		if err := add(c); err != nil {
			return nil, err
		}
	}
	for _, ct := range tables.CTypes {
		t, ok := byGo[ct.Go]
		if !ok {
			return nil, fmt.Errorf("tables.CTypes: %s maps onto %s, which tables.Types lacks", ct.C, ct.Go)
		}
		c := CType{Name: ct.TypeName, C: ct.C, Go: t.Go, TI: fmt.Sprint(ti[t.Go]), Size: t.Size, Kind: t.Kind, Basic: true}
		if err := add(c); err != nil {
			return nil, err
		}
	}
	for _, c := range cOnly {
		if c.Name == "char" {
			c.Go = "int8"
			c.TI = fmt.Sprintf("(CHAR_MIN < 0 ? %d : %d)", ti["int8"], ti["uint8"])
		}
		if err := add(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// family resolves a space-separated list of TYPENAMEs.
func family(all map[string]CType, names string) []CType {
	var f []CType
	for _, n := range strings.Fields(names) {
		c, ok := all[n]
		if !ok {
			panic(fmt.Sprintf("cabigen: no C type has TYPENAME %q", n))
		}
		f = append(f, c)
	}
	return f
}
