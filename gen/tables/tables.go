// Package tables holds the one type table and the one operation table that drive every
// typed piece of goshmem: the avo kernel generators, the NEON generator, the Go dispatch
// and the per-type tests of package kernels, and later the C-header generator of the C ABI.
//
// Nothing here imports avo; any generator may import it.
package tables

import "strings"

// Kind is the arithmetic kind of an element type.
type Kind uint8

const (
	Signed Kind = iota
	Unsigned
	Float
	Complex
)

func (k Kind) String() string {
	return [...]string{"signed", "unsigned", "float", "complex"}[k]
}

// Integer reports whether k is Signed or Unsigned.
func (k Kind) Integer() bool { return k == Signed || k == Unsigned }

// Type is one element type that has combine kernels.
type Type struct {
	Go       string // Go type name: "int32"
	C        string // C type name: "int32_t"
	TypeName string // OpenSHMEM TYPENAME ("int32"); "" where the spec has none
	Size     int    // bytes on a 64-bit target
	Kind     Kind
	Word     bool // size is the platform word (int, uint, uintptr): 4 bytes on 32-bit targets
}

// Title is the Go name with an upper-case first letter: "Int32", "Complex128".
func (t Type) Title() string { return strings.ToUpper(t.Go[:1]) + t.Go[1:] }

// Bits is the size in bits.
func (t Type) Bits() int { return t.Size * 8 }

// Types lists every element type with kernels, in the order of the kernels package's type
// index. The exact Go types, no named variants.
var Types = []Type{
	{Go: "int8", C: "int8_t", TypeName: "int8", Size: 1, Kind: Signed},
	{Go: "int16", C: "int16_t", TypeName: "int16", Size: 2, Kind: Signed},
	{Go: "int32", C: "int32_t", TypeName: "int32", Size: 4, Kind: Signed},
	{Go: "int64", C: "int64_t", TypeName: "int64", Size: 8, Kind: Signed},
	{Go: "int", C: "ptrdiff_t", TypeName: "ptrdiff", Size: 8, Kind: Signed, Word: true},
	{Go: "uint8", C: "uint8_t", TypeName: "uint8", Size: 1, Kind: Unsigned},
	{Go: "uint16", C: "uint16_t", TypeName: "uint16", Size: 2, Kind: Unsigned},
	{Go: "uint32", C: "uint32_t", TypeName: "uint32", Size: 4, Kind: Unsigned},
	{Go: "uint64", C: "uint64_t", TypeName: "uint64", Size: 8, Kind: Unsigned},
	{Go: "uint", C: "size_t", TypeName: "size", Size: 8, Kind: Unsigned, Word: true},
	{Go: "uintptr", C: "uintptr_t", TypeName: "", Size: 8, Kind: Unsigned, Word: true},
	{Go: "float32", C: "float", TypeName: "float", Size: 4, Kind: Float},
	{Go: "float64", C: "double", TypeName: "double", Size: 8, Kind: Float},
	{Go: "complex64", C: "float _Complex", TypeName: "complexf", Size: 8, Kind: Complex},
	{Go: "complex128", C: "double _Complex", TypeName: "complexd", Size: 16, Kind: Complex},
}

// CType is one more C type of the OpenSHMEM tables, named by its TYPENAME, and the Go type
// of Types it maps onto on LP64 targets. The Types rows already carry their own C type; these
// are the C basic types the spec's tables add. C's long double has no Go type and is absent.
type CType struct {
	C        string // "long long"
	TypeName string // "longlong"
	Go       string // "int64"
}

// CTypes lists the C basic types of the OpenSHMEM tables beyond the fixed-width ones.
var CTypes = []CType{
	{C: "signed char", TypeName: "schar", Go: "int8"},
	{C: "short", TypeName: "short", Go: "int16"},
	{C: "int", TypeName: "int", Go: "int32"},
	{C: "long", TypeName: "long", Go: "int64"},
	{C: "long long", TypeName: "longlong", Go: "int64"},
	{C: "unsigned char", TypeName: "uchar", Go: "uint8"},
	{C: "unsigned short", TypeName: "ushort", Go: "uint16"},
	{C: "unsigned int", TypeName: "uint", Go: "uint32"},
	{C: "unsigned long", TypeName: "ulong", Go: "uint64"},
	{C: "unsigned long long", TypeName: "ulonglong", Go: "uint64"},
}

// Op is one combine operation.
type Op struct {
	Name  string // lower case, as OpenSHMEM spells it: "sum" (shmem_int_sum_to_all)
	Title string // Go identifier part: "Sum"
	// Kinds lists the element kinds the operation is defined for.
	Kinds []Kind
	// ByteWise: the result in each byte depends only on that byte of the operands, so one
	// kernel serves every element type of a given size.
	ByteWise bool
	// SignedOrder: signed and unsigned integers need different kernels (min, max).
	SignedOrder bool
	// Infix is the Go expression for op(a, b), with a and b as the operands ("" where no
	// single expression exists: min and max are written as a comparison, see Compare).
	Infix string
	// Compare is the comparison that selects a for min/max: a Compare b ? a : b. This is the
	// C reference (dst < src ? dst : src), not Go's min or math.Min: NaN and -0 follow it.
	Compare string
}

var (
	ints     = []Kind{Signed, Unsigned}
	ordered  = []Kind{Signed, Unsigned, Float}
	numerics = []Kind{Signed, Unsigned, Float, Complex}
)

// Ops lists the operations in the order of the kernels.Op constants.
var Ops = []Op{
	{Name: "sum", Title: "Sum", Kinds: numerics, Infix: "a + b"},
	{Name: "prod", Title: "Prod", Kinds: numerics, Infix: "a * b"},
	{Name: "min", Title: "Min", Kinds: ordered, SignedOrder: true, Compare: "<"},
	{Name: "max", Title: "Max", Kinds: ordered, SignedOrder: true, Compare: ">"},
	{Name: "and", Title: "And", Kinds: ints, ByteWise: true, Infix: "a & b"},
	{Name: "or", Title: "Or", Kinds: ints, ByteWise: true, Infix: "a | b"},
	{Name: "xor", Title: "Xor", Kinds: ints, ByteWise: true, Infix: "a ^ b"},
}

// Valid reports whether op is defined for t.
func (op Op) Valid(t Type) bool {
	for _, k := range op.Kinds {
		if k == t.Kind {
			return true
		}
	}
	return false
}

// Class is the machine-level shape one kernel computes: the lane kind and width. Many
// (op, type) pairs share one kernel: sum of int32 and uint32 are both I32, sum of
// complex64 is F32 over twice the elements.
type Class struct {
	Name  string // "I32", "U16", "F64", "C64"
	Kind  Kind   // Signed stands for "integer, signedness irrelevant" unless the op is SignedOrder
	Bits  int    // lane width
	Lanes int    // lanes per element: 2 for complex sum, else 1
}

// Elem is the element width in bytes (a complex counts as one element).
func (c Class) Elem() int { return c.Bits / 8 * c.Lanes }

// ClassOf gives the kernel class of (op, t); ok is false where op is not valid for t.
// Word-sized types map onto the 64-bit classes (64-bit targets only).
func ClassOf(op Op, t Type) (c Class, ok bool) {
	if !op.Valid(t) {
		return Class{}, false
	}
	bits := t.Bits()
	switch t.Kind {
	case Signed, Unsigned:
		if op.SignedOrder && t.Kind == Unsigned {
			return Class{Name: "U" + itoa(bits), Kind: Unsigned, Bits: bits, Lanes: 1}, true
		}
		return Class{Name: "I" + itoa(bits), Kind: Signed, Bits: bits, Lanes: 1}, true
	case Float:
		return Class{Name: "F" + itoa(bits), Kind: Float, Bits: bits, Lanes: 1}, true
	default: // Complex
		half := bits / 2
		if op.Name == "sum" {
			return Class{Name: "F" + itoa(half) + "x2", Kind: Float, Bits: half, Lanes: 2}, true
		}
		return Class{Name: "C" + itoa(bits), Kind: Complex, Bits: half, Lanes: 2}, true
	}
}

// Kernel is one distinct kernel: an op over a class.
type Kernel struct {
	Op    Op
	Class Class
}

// Name is the kernel's identifier stem: "SumI32", "MinU8", "ProdC64".
func (k Kernel) Name() string { return k.Op.Title + k.Class.Name }

// Kernels lists the distinct kernels over all (op, type) pairs, in table order.
func Kernels() []Kernel {
	var ks []Kernel
	seen := map[string]bool{}
	for _, op := range Ops {
		for _, t := range Types {
			c, ok := ClassOf(op, t)
			if !ok {
				continue
			}
			k := Kernel{op, c}
			if !seen[k.Name()] {
				seen[k.Name()] = true
				ks = append(ks, k)
			}
		}
	}
	return ks
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// GoType is the Go type a class's kernel reads and writes: "int32", "uint8", "complex64".
// Its pure-Go reference (and the tail of a vector kernel) runs on this type.
func (c Class) GoType() string {
	switch c.Kind {
	case Signed:
		return "int" + itoa(c.Bits)
	case Unsigned:
		return "uint" + itoa(c.Bits)
	case Float:
		if c.Lanes == 2 {
			return "complex" + itoa(2*c.Bits)
		}
		return "float" + itoa(c.Bits)
	default:
		return "complex" + itoa(2*c.Bits)
	}
}

// Cmp is one comparison of the point-to-point synchronization routines (wait_until, test and
// their forms), in the order of the specification's SHMEM_CMP_* values.
type Cmp struct {
	Name  string // "eq"
	Title string // Go identifier part: "EQ"
	Go    string // the Go operator: "=="
	// Ordered: signed and unsigned elements need different kernels.
	Ordered bool
}

// Cmps lists the comparisons in the order of kernels.Cmp (and shmem.Cmp).
var Cmps = []Cmp{
	{Name: "eq", Title: "EQ", Go: "=="},
	{Name: "ne", Title: "NE", Go: "!="},
	{Name: "gt", Title: "GT", Go: ">", Ordered: true},
	{Name: "ge", Title: "GE", Go: ">=", Ordered: true},
	{Name: "lt", Title: "LT", Go: "<", Ordered: true},
	{Name: "le", Title: "LE", Go: "<=", Ordered: true},
}

// ScanClass is one element shape the scan kernels of the wait/test family read: the element
// width and signedness of the Sync types (16-, 32- and 64-bit integers; int, uint and uintptr
// are the 64-bit classes on 64-bit targets).
type ScanClass struct {
	Name string // "I16", "U64"
	Bits int
	Kind Kind // Signed or Unsigned
}

// GoType is the Go type the class's reference reads: "int16", "uint64".
func (c ScanClass) GoType() string {
	if c.Kind == Unsigned {
		return "uint" + itoa(c.Bits)
	}
	return "int" + itoa(c.Bits)
}

// ScanClasses lists the scan classes in the order of the kernels package's scan tables.
var ScanClasses = []ScanClass{
	{Name: "I16", Bits: 16, Kind: Signed},
	{Name: "U16", Bits: 16, Kind: Unsigned},
	{Name: "I32", Bits: 32, Kind: Signed},
	{Name: "U32", Bits: 32, Kind: Unsigned},
	{Name: "I64", Bits: 64, Kind: Signed},
	{Name: "U64", Bits: 64, Kind: Unsigned},
}

// ScanKernel is one distinct scan kernel: a comparison over a class. Equality ignores
// signedness, so EQ and NE of an unsigned class are the signed class's kernels.
type ScanKernel struct {
	Cmp   Cmp
	Class ScanClass
}

// Name is the kernel's identifier stem: "ScanGTU32".
func (k ScanKernel) Name() string { return "Scan" + k.Cmp.Title + k.Class.Name }

// ScanKernelOf gives the kernel that serves (cmp, class).
func ScanKernelOf(cmp Cmp, c ScanClass) ScanKernel {
	if !cmp.Ordered && c.Kind == Unsigned {
		c = ScanClass{Name: "I" + itoa(c.Bits), Bits: c.Bits, Kind: Signed}
	}
	return ScanKernel{cmp, c}
}

// ScanKernels lists the distinct scan kernels, in table order.
func ScanKernels() []ScanKernel {
	var ks []ScanKernel
	seen := map[string]bool{}
	for _, cmp := range Cmps {
		for _, c := range ScanClasses {
			k := ScanKernelOf(cmp, c)
			if !seen[k.Name()] {
				seen[k.Name()] = true
				ks = append(ks, k)
			}
		}
	}
	return ks
}
