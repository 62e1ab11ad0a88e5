#include "agent/runtime/stream_framing.h"

#include <gtest/gtest.h>

#include "agent/runtime/remote_command.h"
#include "net/http/websocket.h"
#include "net/spdy/frames.h"

namespace etna::agent::runtime {
namespace {

namespace ws = net::http::websocket;
namespace spdy = net::spdy;

net::http::Request Upgrade(std::map<std::string, std::string> headers) {
  net::http::Request r;
  r.method = "POST";
  r.headers = std::move(headers);
  return r;
}

TEST(StreamFramingTest, WebSocketChannelsPingsAndTheV5CloseSignal) {
  auto n = NegotiateRemoteCommandFraming(
      Upgrade({{"upgrade", "websocket"},
               {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="},
               {"sec-websocket-protocol", "v4.channel.k8s.io, v5.channel.k8s.io"}}),
      {});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_NE(
      std::find(n->headers.begin(), n->headers.end(),
                std::pair<std::string, std::string>{"Sec-WebSocket-Protocol", "v5.channel.k8s.io"}),
      n->headers.end());
  StreamFraming& f = *n->framing;
  EXPECT_TRUE(f.Ready());
  std::vector<ChannelEvent> events;
  std::string reply;
  std::string in = ws::EncodeMaskedFrame(ws::Opcode::kBinary, std::string("\0hi", 3), 1) +
                   ws::EncodeMaskedFrame(ws::Opcode::kBinary, "\x04{\"Width\":80}", 2) +
                   ws::EncodeMaskedFrame(ws::Opcode::kPing, "p", 3) +
                   ws::EncodeMaskedFrame(ws::Opcode::kBinary, std::string("\xff\0", 2), 4);
  ASSERT_TRUE(f.Feed(in, &events, &reply).ok());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].kind, ChannelEvent::Kind::kStdin);
  EXPECT_EQ(events[0].data, "hi");
  EXPECT_EQ(events[1].kind, ChannelEvent::Kind::kResize);
  EXPECT_EQ(events[1].data, "{\"Width\":80}");
  EXPECT_EQ(events[2].kind, ChannelEvent::Kind::kStdinClosed);
  EXPECT_EQ(reply, ws::EncodeFrame(ws::Opcode::kPong, "p"));
  EXPECT_EQ(f.Output(kStdoutChannel, "out"), ws::EncodeFrame(ws::Opcode::kBinary, "\x01out"));
}

TEST(StreamFramingTest, SpdyWaitsForEveryChannelTheRequestAskedFor) {
  auto n = NegotiateRemoteCommandFraming(
      Upgrade({{"upgrade", "SPDY/3.1"},
               {"x-stream-protocol-version", "v4.channel.k8s.io, v3.channel.k8s.io"}}),
      {.stdin = true, .stdout = true, .stderr = true, .tty = false});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  StreamFraming& f = *n->framing;
  spdy::Encoder client;
  std::vector<ChannelEvent> events;
  std::string reply;
  int id = 1;
  for (const char* type : {"error", "stdin", "stdout"}) {
    std::string frame = client.SynStream(id, 0, {{"streamtype", type}}, 0);
    ASSERT_TRUE(f.Feed(frame, &events, &reply).ok());
    id += 2;
  }
  EXPECT_FALSE(f.Ready());  // stderr still missing
  ASSERT_TRUE(f.Feed(client.SynStream(7, 0, {{"streamtype", "stderr"}}, 0), &events, &reply).ok());
  EXPECT_TRUE(f.Ready());
  std::string data = client.Data(3, "typed", 0);
  std::string fin = client.Data(3, "", spdy::kFlagFin);
  ASSERT_TRUE(f.Feed(data + fin, &events, &reply).ok());
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, "typed");
  EXPECT_EQ(events[1].kind, ChannelEvent::Kind::kStdinClosed);
  // Four SYN_REPLYs, then stdout's data on the client's stream 5.
  spdy::Decoder decoder;
  std::vector<spdy::Frame> frames;
  ASSERT_TRUE(decoder.Feed(reply + f.Output(kStdoutChannel, "out"), &frames).ok());
  ASSERT_EQ(frames.size(), 5u);
  EXPECT_EQ(frames[0].type, spdy::Frame::Type::kSynReply);
  EXPECT_EQ(frames[4].stream_id, 5u);
  EXPECT_EQ(frames[4].data, "out");
}

TEST(StreamFramingTest, UnknownProtocolsAreNamed) {
  auto n = NegotiateRemoteCommandFraming(Upgrade({{"upgrade", "websocket"},
                                                  {"sec-websocket-key", "k"},
                                                  {"sec-websocket-protocol", "channel.k8s.io"}}),
                                         {});
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("v5.channel.k8s.io"), std::string::npos);
}

TEST(StreamFramingTest, ExecQueryRepeatsCommandAndReadsGoBooleans) {
  net::http::Request r;
  r.target = "/exec/ns/p/c?command=sh&command=-c&command=exit+3&stdin=True&stdout=1&tty=true";
  r.query = {{"stdin", "True"}, {"stdout", "1"}, {"tty", "true"}};
  auto parsed = ParseRemoteCommand(r);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->exec.command, (std::vector<std::string>{"sh", "-c", "exit 3"}));
  EXPECT_TRUE(parsed->exec.stdin && parsed->exec.tty && parsed->stdout);
  r.query["stdin"] = "maybe";
  EXPECT_NE(ParseRemoteCommand(r).status().message().find("stdin"), std::string::npos);
}

}  // namespace
}  // namespace etna::agent::runtime
