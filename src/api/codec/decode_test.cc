#include "api/codec/decode.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace etna::api::codec {
namespace {

std::string Nested(int depth, char open, char close) {
  return std::string(static_cast<size_t>(depth), open) +
         std::string(static_cast<size_t>(depth), close);
}

TEST(DecodeJsonTest, ParsesObjects) {
  Result<Json> j = DecodeJson(R"({"a": [1, 2.5, "x", true, null], "b": {"c": -3}})");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ((*j)["a"][0], 1);
  EXPECT_TRUE((*j)["a"][0].is_number_integer());
  EXPECT_EQ((*j)["a"][1], 2.5);
  EXPECT_EQ((*j)["b"]["c"], -3);
}

TEST(DecodeJsonTest, ParseErrorsNameThePosition) {
  Result<Json> j = DecodeJson("{\"a\": tru}");
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(j.status().message().find("line 1, column"), std::string::npos) << j.status().message();
  EXPECT_EQ(j.status().message().find("[json.exception"), std::string::npos);
}

TEST(DecodeJsonTest, DepthLimit) {
  EXPECT_TRUE(DecodeJson(Nested(64, '[', ']')).ok());
  Result<Json> deep = DecodeJson(Nested(65, '[', ']'));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.status().message(), "nesting deeper than 64 levels");
  Result<Json> very_deep = DecodeJson(std::string(10000, '['));
  ASSERT_FALSE(very_deep.ok());
  EXPECT_EQ(very_deep.status().message(), "nesting deeper than 64 levels");
  std::string objects;
  for (int i = 0; i < 100; ++i) objects += "{\"a\":";
  EXPECT_FALSE(DecodeJson(objects + "1" + std::string(100, '}')).ok());
  EXPECT_TRUE(DecodeJson(Nested(3, '[', ']'), {.max_depth = 3}).ok());
  EXPECT_FALSE(DecodeJson(Nested(4, '[', ']'), {.max_depth = 3}).ok());
}

TEST(DecodeJsonTest, SizeLimit) {
  Result<Json> j = DecodeJson("[1,2,3]", {.max_bytes = 5});
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("limit of 5 bytes"), std::string::npos);
  std::string big = "\"" + std::string(3 * 1024 * 1024, 'a') + "\"";
  EXPECT_FALSE(DecodeJson(big).ok());
}

TEST(DecodeYamlTest, MultipleDocumentsSkippingEmptyOnes) {
  Result<std::vector<Json>> docs = DecodeYamlDocuments(R"(---
kind: Queue
metadata:
  name: q1
---
---
# only a comment
---
kind: Job
spec:
  tasks:
  - name: a
    replicas: 2
)");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0]["metadata"]["name"], "q1");
  EXPECT_EQ((*docs)[1]["spec"]["tasks"][0]["replicas"], 2);
}

TEST(DecodeYamlTest, ScalarsResolveAsKubernetes) {
  struct Case {
    std::string yaml;
    Json want;
  };
  const std::vector<Case> cases = {
      {"v: 42", 42},
      {"v: -7", -7},
      {"v: 0x1F", 31},
      {"v: 0o17", 15},
      {"v: 017", 15},
      {"v: 1_000", 1000},
      {"v: 9223372036854775807", INT64_MAX},
      {"v: 18446744073709551615", UINT64_MAX},
      {"v: 1.5", 1.5},
      {"v: 1e3", 1000.0},
      {"v: .5", 0.5},
      {"v: 1e999", "1e999"},
      {"v: true", true},
      {"v: False", false},
      {"v: yes", true},
      {"v: no", false},
      {"v: on", true},
      {"v: OFF", false},
      {"v: null", nullptr},
      {"v: ~", nullptr},
      {"v:", nullptr},
      {"v: \"true\"", "true"},
      {"v: '42'", "42"},
      {"v: \"null\"", "null"},
      {"v: hello world", "hello world"},
      {"v: 1.2.3", "1.2.3"},
      {"v: 2024-01-01", "2024-01-01"},
      {"v: !!str 42", "42"},
      {"v: !!int \"42\"", 42},
      {"v: !!float 1", 1.0},
      {"v: |\n  line\n", "line\n"},
      {"v: >-\n  folded\n  text\n", "folded text"},
      {"v: [1, a, 'b']", Json::array({1, "a", "b"})},
      {"v: {}", Json::object()},
      {"v: []", Json::array()},
  };
  for (const Case& c : cases) {
    Result<std::vector<Json>> docs = DecodeYamlDocuments(c.yaml);
    ASSERT_TRUE(docs.ok()) << c.yaml << ": " << docs.status().ToString();
    ASSERT_EQ(docs->size(), 1u) << c.yaml;
    const Json& got = (*docs)[0]["v"];
    EXPECT_EQ(got, c.want) << c.yaml << " gave " << got.dump();
    EXPECT_EQ(got.type(), c.want.type()) << c.yaml << " gave " << got.dump();
  }
}

TEST(DecodeYamlTest, KeysBecomeStrings) {
  Result<std::vector<Json>> docs = DecodeYamlDocuments("1: a\ntrue: b\nnull: c\n0x10: d\n");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  EXPECT_EQ((*docs)[0], Json({{"1", "a"}, {"true", "b"}, {"null", "c"}, {"16", "d"}}));
  EXPECT_FALSE(DecodeYamlDocuments("? [a, b]\n: c\n").ok());
}

TEST(DecodeYamlTest, AnchorsAliasesAndMergeKeys) {
  Result<std::vector<Json>> docs = DecodeYamlDocuments(R"(
base: &base {cpu: 1, memory: 2Gi}
env: &env [a, b]
one: *env
two:
  <<: *base
  cpu: 4
)");
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  const Json& d = (*docs)[0];
  EXPECT_EQ(d["one"], Json::array({"a", "b"}));
  EXPECT_EQ(d["two"], Json({{"cpu", 4}, {"memory", "2Gi"}}));
}

TEST(DecodeYamlTest, ErrorsNameTheLine) {
  Result<std::vector<Json>> docs = DecodeYamlDocuments("a: 1\nb: 2\nc: d: e\n");
  ASSERT_FALSE(docs.ok());
  EXPECT_EQ(docs.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(docs.status().message().starts_with("line 3: ")) << docs.status().message();

  Result<std::vector<Json>> unclosed = DecodeYamlDocuments("a: 1\nb: [1, 2\n");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_TRUE(unclosed.status().message().starts_with("line ")) << unclosed.status().message();

  Result<std::vector<Json>> inf = DecodeYamlDocuments("a: 1\nb: .inf\n");
  ASSERT_FALSE(inf.ok());
  EXPECT_TRUE(inf.status().message().starts_with("line 2: ")) << inf.status().message();

  Result<std::vector<Json>> utf8 = DecodeYamlDocuments("a: 1\nb: \xff\n");
  ASSERT_FALSE(utf8.ok());
  EXPECT_TRUE(utf8.status().message().starts_with("line 2: invalid UTF-8"))
      << utf8.status().message();

  // yaml-cpp never consumes a stray flow token at block level; it must not loop.
  for (std::string text : {",", "a: 1\n---\n,\n", "a: 1\n]\n", "- a\n}\n"}) {
    Result<std::vector<Json>> stray = DecodeYamlDocuments(text);
    ASSERT_FALSE(stray.ok()) << text;
    EXPECT_TRUE(stray.status().message().starts_with("line ")) << stray.status().message();
  }

  Result<std::vector<Json>> nul = DecodeYamlDocuments(std::string("a\0\0\0a!\0kind\n", 12));
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.status().message(), "line 1: control character 0x00 is not allowed");

  Result<std::vector<Json>> surrogate = DecodeYamlDocuments("a: 1\nb: \"\\uD800\"\n");
  ASSERT_FALSE(surrogate.ok());
  EXPECT_TRUE(surrogate.status().message().starts_with("line 2: ")) << surrogate.status().message();
}

TEST(DecodeYamlTest, DeepNestingRejected) {
  EXPECT_TRUE(DecodeYamlDocuments(Nested(64, '[', ']')).ok());
  std::string flow_maps;
  for (int i = 0; i < 100; ++i) flow_maps += "{a: ";
  flow_maps += "1" + std::string(100, '}');
  for (const std::string& text : {Nested(65, '[', ']'), std::string(10000, '['),
                                  std::string(10000, '{'), Nested(10000, '[', ']'), flow_maps}) {
    Result<std::vector<Json>> docs = DecodeYamlDocuments(text);
    ASSERT_FALSE(docs.ok());
    EXPECT_NE(docs.status().message().find("nesting deeper than 64 levels"), std::string::npos)
        << docs.status().message();
  }
  std::string block;
  for (int i = 0; i < 80; ++i) block += std::string(static_cast<size_t>(i), ' ') + "a:\n";
  Result<std::vector<Json>> docs = DecodeYamlDocuments(block);
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("nesting deeper than 64 levels"), std::string::npos);
}

TEST(DecodeYamlTest, AliasBombRejectedFast) {
  std::string bomb =
      "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  std::string prev = "a";
  for (char c = 'b'; c <= 'j'; ++c) {
    bomb += fmt::format("{0}: &{0} [*{1},*{1},*{1},*{1},*{1},*{1},*{1},*{1},*{1}]\n", c, prev);
    prev = std::string(1, c);
  }
  auto start = std::chrono::steady_clock::now();
  Result<std::vector<Json>> docs = DecodeYamlDocuments(bomb);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(docs.ok());
  EXPECT_NE(docs.status().message().find("through aliases"), std::string::npos)
      << docs.status().message();
  EXPECT_LT(elapsed, std::chrono::seconds(5));

  // Long strings repeated through aliases are capped by bytes.
  std::string strings = "a: &a \"" + std::string(100000, 'x') + "\"\nb: [";
  for (int i = 0; i < 50; ++i) strings += "*a,";
  strings += "*a]\n";
  Result<std::vector<Json>> expanded = DecodeYamlDocuments(strings);
  ASSERT_FALSE(expanded.ok());
  EXPECT_NE(expanded.status().message().find("bytes (through aliases)"), std::string::npos)
      << expanded.status().message();

  // A few aliases are fine.
  Result<std::vector<Json>> few = DecodeYamlDocuments("a: &a {x: 1}\nb: *a\nc: [*a, *a]\n");
  ASSERT_TRUE(few.ok()) << few.status().ToString();
  EXPECT_EQ((*few)[0]["c"][1]["x"], 1);

  // A self-referencing alias cannot loop forever.
  EXPECT_FALSE(DecodeYamlDocuments("a: &x [*x]\n").ok());
}

TEST(DecodeYamlTest, SizeLimit) {
  EXPECT_FALSE(DecodeYamlDocuments("a: 1", {.max_bytes = 3}).ok());
  EXPECT_TRUE(DecodeYamlDocuments("a: 1", {.max_bytes = 4}).ok());
}

TEST(DecodeBodyTest, DispatchesOnContentType) {
  struct Case {
    std::string content_type;
    std::string body;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"application/json", R"({"a":1})", true},
      {"application/json; charset=utf-8", R"({"a":1})", true},
      {"", R"({"a":1})", true},
      {"application/merge-patch+json", R"({"a":1})", true},
      {"application/strategic-merge-patch+json", R"({"a":1})", true},
      {"application/json-patch+json", R"([{"op":"remove","path":"/a"}])", true},
      {"application/yaml", "a: 1\n", true},
      {"application/apply-patch+yaml", R"({"a":1})", true},
      {"application/apply-patch+yaml", "a: 1\n", true},
      {"Application/YAML", "a: 1\n", true},
      {"application/json", "a: 1\n", false},
      {"application/yaml", "a: 1\n---\na: 2\n", false},
      {"application/yaml", "", false},
      {"text/plain", "a", false},
      {"application/vnd.kubernetes.protobuf", "a", false},
  };
  for (const Case& c : cases) {
    Result<Json> j = DecodeBody(c.body, c.content_type);
    EXPECT_EQ(j.ok(), c.ok) << c.content_type << " " << c.body << ": " << j.status().ToString();
    if (j.ok()) {
      EXPECT_TRUE(j->is_object() || j->is_array());
    }
  }
  Result<Json> unsupported = DecodeBody("a", "text/plain");
  EXPECT_NE(unsupported.status().message().find("unsupported content type"), std::string::npos);
  Result<Json> multi = DecodeBody("a: 1\n---\na: 2\n", "application/yaml");
  EXPECT_NE(multi.status().message().find("found 2"), std::string::npos);
}

TEST(DecodeBodyTest, YamlBodyAsJson) {
  Result<Json> j =
      DecodeBody(R"({"spec": {"replicas": 3, "name": "x"}})", "application/apply-patch+yaml");
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)["spec"]["replicas"], 3);
  Result<Json> deep = DecodeBody(Nested(100, '[', ']'), "application/yaml");
  ASSERT_FALSE(deep.ok());
  Result<Json> big = DecodeBody("a: 1", "application/yaml", {.max_bytes = 2});
  EXPECT_FALSE(big.ok());
}

}  // namespace
}  // namespace etna::api::codec
