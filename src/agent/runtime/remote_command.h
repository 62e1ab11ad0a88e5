// Kubernetes' remote command protocol (what `kubectl exec`, `kubectl attach` and the client
// libraries' stream() speak to the kubelet, through the API server) on an upgraded connection, over
// WebSocket (v5.channel.k8s.io, v4.channel.k8s.io: one byte of channel before each message's data)
// or SPDY/3.1 (v4.channel.k8s.io: one stream per channel, opened by the client). Channels: 0 stdin,
// 1 stdout, 2 stderr, 3 error (the command's end as a metav1.Status: Success, or Failure with
// reason NonZeroExitCode and the code in details.causes[ExitCode]), 4 resize ({"Width","Height"}
// JSON), and in v5 255 close (the client's end of stdin).
// Thread-safety: as net/http's UpgradedStream; the stream runs the command with its own threads.
#pragma once

#include <memory>
#include <string>

#include "agent/runtime/exec_session.h"
#include "net/http/message.h"

namespace etna::agent::runtime {

struct RemoteCommandRequest {
  ExecRequest exec;
  bool stdout = true;
  bool stderr = true;
  // Set: an attach, not an exec. The running container's output from now on, followed in its
  // log (stdout and stderr as one, on the stdout channel) until the run ends.
  std::string attach_log;
};

// The request's options from its query (command= repeated, stdin, stdout, stderr, tty);
// InvalidArgument naming the parameter. `attach`: no command; stdin and tty are refused (a
// container's main process has no stdin to attach to: admission refuses `stdin: true`).
Result<RemoteCommandRequest> ParseRemoteCommand(const net::http::Request& request,
                                                bool attach = false);

// The 101 reply that runs `request` in `target` once the client's channels are there, or a 400
// naming the protocols this side speaks when the request offers none of them.
net::http::Response UpgradeRemoteCommand(const net::http::Request& upgrade, ProbeTarget target,
                                         RemoteCommandRequest request);

}  // namespace etna::agent::runtime
