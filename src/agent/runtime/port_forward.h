// Kubernetes' port-forward protocol (`kubectl port-forward`, through the API server) on an
// upgraded connection: SPDY/3.1 (portforward.k8s.io), either directly (Upgrade: SPDY/3.1) or
// carried in WebSocket binary messages (Sec-WebSocket-Protocol: SPDY/3.1+portforward.k8s.io,
// kubectl 1.31 and later). For each connection the client opens an "error" and a "data" stream
// with the same requestid and port; the agent connects to that port of the pod (its address:
// pods use the host's network) and copies bytes both ways; a failure is written on the error
// stream.
// Thread-safety: as net/http's UpgradedStream; each connection has its own threads.
#pragma once

#include <string>

#include "net/http/message.h"

namespace etna::agent::runtime {

// The 101 reply that forwards to ports of the pod at `pod_ip`, or a 400 naming the protocols
// this side speaks.
net::http::Response UpgradePortForward(const net::http::Request& upgrade, std::string pod_ip,
                                       std::string pod_name);

}  // namespace etna::agent::runtime
