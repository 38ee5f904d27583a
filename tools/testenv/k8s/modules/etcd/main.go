// Command etcd is the etcd server, built from go.etcd.io/etcd/server/v3 at the
// version pinned in go.mod (the upstream binary lives in a module of its own).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
