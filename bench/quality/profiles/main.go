// Command profiles prints the ranking profiles this build knows, one a line
// in byte order (profile.Names), for make quality to iterate over.
package main

import (
	"fmt"

	"github.com/toolsift/toolsift/core/profile"
)

func main() {
	for _, name := range profile.Names() {
		fmt.Println(name)
	}
}
