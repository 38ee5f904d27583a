// CoreDNS for the Tidepool test environment: only the plugins a cluster's pod
// DNS needs (no forwarding: names outside the cluster get no answer, so nothing
// leaves the machine).
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The order in which plugins handle a query (a subset of CoreDNS's plugin.cfg order).
func init() {
	dnsserver.Directives = []string{"bind", "errors", "log", "health", "ready", "cache", "kubernetes"}
}

func main() { coremain.Run() }
