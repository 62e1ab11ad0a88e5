// Plain blocking TCP for the byte relays of upgraded connections (the API server to an agent,
// an agent to a pod's port): connect with an optional send/receive timeout, send everything.
// Thread-safety: pure functions over the caller's sockets.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace etna::net::http {

// A connected socket (SOCK_CLOEXEC) to host:port, trying each address; with `io_timeout` > 0,
// sends and receives time out after it. Unavailable naming the cause otherwise.
Result<int> ConnectTcp(const std::string& host, uint16_t port,
                       std::chrono::milliseconds io_timeout = std::chrono::milliseconds(0));

// Sends all of `data`; false once the peer is gone (or the send timed out).
bool SendAll(int fd, std::string_view data);

}  // namespace etna::net::http
