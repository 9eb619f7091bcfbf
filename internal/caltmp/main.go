package main
import ("fmt"; "os"; "time"; "github.com/goshmem/shmem/topology"; "github.com/goshmem/shmem/topology/calibrate")
func main(){ t,_:=topology.Read(""); t0:=time.Now(); f,err:=calibrate.Run(t, calibrate.Options{}); if err!=nil{fmt.Println(err);os.Exit(1)}; fmt.Println(time.Since(t0)); os.Stdout.Write(topology.FormatModel(f)) }
