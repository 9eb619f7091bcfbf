package topology
import ("testing";"fmt")
func TestZZ(t *testing.T){
 m := DefaultCostModel()
 for _, name := range trees {
  tp := readTree(t, name)
  fmt.Print(Summary(tp))
  for _, n := range []int{2, 8, tp.Allowed.Count()/2} {
   if n < 2 { continue }
   bs, err := Place(tp, n, Options{})
   if err != nil { fmt.Println(err); continue }
   pm := PlaceMap(bs)
   fmt.Printf("-- %d PEs\n%s", n, ChoiceTable(pm, m))
   for _, c := range Collectives { for _, sz := range []int{8, 65536, 4<<20} { a, why := Choose(c, pm, sz, m); fmt.Printf("   %s %d: %s — %s\n", c, sz, a, why) } }
  }
 }
}
