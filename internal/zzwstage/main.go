package main

import (
	"fmt"
	"os"
	"time"

	"github.com/toolsift/toolsift/core/engine"
	"github.com/toolsift/toolsift/core/profile"
	"github.com/toolsift/toolsift/core/snapshot"
)

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	t0 := time.Now()
	snapshot.ZZSum(data[32:])
	t1 := time.Now()
	b, err := snapshot.DecodeOwned(data)
	if err != nil {
		panic(err)
	}
	t2 := time.Now()
	p, _ := profile.Lookup(b.Profile)
	_, err = engine.NewWithIndex(&b.Catalog, p, &b.Index, &b.Identity)
	t3 := time.Now()
	fmt.Println("checksum", t1.Sub(t0), "decode(incl checksum)", t2.Sub(t1), "engine", t3.Sub(t2), err)
}
