#include "api/codec/selectors.h"

#include <gtest/gtest.h>

#include <string>

namespace etna::api::codec {
namespace {

using Op = LabelSelector::Op;
using Json = nlohmann::json;

TEST(LabelSelectorTest, ParsesEveryOperator) {
  struct Case {
    std::string text;
    std::string key;
    Op op;
    std::vector<std::string> values;
  };
  const std::vector<Case> cases = {
      {"app=web", "app", Op::kEquals, {"web"}},
      {"app == web", "app", Op::kEquals, {"web"}},
      {"app!=web", "app", Op::kNotEquals, {"web"}},
      {"app in (a, b)", "app", Op::kIn, {"a", "b"}},
      {"app notin (a,b)", "app", Op::kNotIn, {"a", "b"}},
      {"app", "app", Op::kExists, {}},
      {"!app", "app", Op::kDoesNotExist, {}},
      {" ! app ", "app", Op::kDoesNotExist, {}},
      {"gpu>5", "gpu", Op::kGreaterThan, {"5"}},
      {"gpu < 5", "gpu", Op::kLessThan, {"5"}},
      {"volcano.sh/job-name=job1", "volcano.sh/job-name", Op::kEquals, {"job1"}},
      {"app=", "app", Op::kEquals, {""}},
      {"app in ()", "app", Op::kIn, {""}},
      {"app in (a,)", "app", Op::kIn, {"a", ""}},
      {"app = in", "app", Op::kEquals, {"in"}},
      {"app in (in, notin)", "app", Op::kIn, {"in", "notin"}},
      {"a_b.c-D=V_1.x-Y", "a_b.c-D", Op::kEquals, {"V_1.x-Y"}},
  };
  for (const Case& c : cases) {
    Result<LabelSelector> s = LabelSelector::Parse(c.text);
    ASSERT_TRUE(s.ok()) << c.text << ": " << s.status().ToString();
    ASSERT_EQ(s->requirements().size(), 1u) << c.text;
    const auto& r = s->requirements()[0];
    EXPECT_EQ(r.key, c.key) << c.text;
    EXPECT_EQ(r.op, c.op) << c.text;
    EXPECT_EQ(r.values, c.values) << c.text;
  }
}

TEST(LabelSelectorTest, SeveralRequirements) {
  Result<LabelSelector> s = LabelSelector::Parse("a=1, b in (x,y),!c,d , e notin (z)");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->requirements().size(), 5u);
  Result<LabelSelector> empty = LabelSelector::Parse("   ");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->Empty());
  EXPECT_TRUE(empty->Matches(Json()));
}

TEST(LabelSelectorTest, BadSyntaxQuotesTheText) {
  struct Case {
    std::string text;
    std::string mention;
  };
  const std::vector<Case> cases = {
      {"a=b=c", "'='"},
      {"a in b", "expected: '('"},
      {"a in (b", "end of input"},
      {"a in (b c)", "'c'"},
      {"a,", "end of input"},
      {",a", "','"},
      {"!a=b", "'='"},
      {"a b", "'b'"},
      {"in=a", "'in'"},
      {"a>b", "must be an integer"},
      {"a<", "must be an integer"},
      {"-a=b", "\"-a\""},
      {"a=-b", "\"-b\""},
      {"a=b c", "'c'"},
      {"Bad.Prefix/a=b", "prefix"},
      {"/a=b", "prefix"},
      {"a/=b", "name part"},
      {std::string(64, 'a') + "=b", "63"},
      {"a=" + std::string(64, 'v'), "63"},
      {"a=v$", "\"v$\""},
      {"a in (x,(", "'('"},
  };
  for (const Case& c : cases) {
    Result<LabelSelector> s = LabelSelector::Parse(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(c.mention), std::string::npos)
        << c.text << ": " << s.status().message();
    EXPECT_NE(s.status().message().find(c.text), std::string::npos) << s.status().message();
  }
}

TEST(LabelSelectorTest, Matches) {
  const Json labels = {{"app", "web"}, {"tier", "front"}, {"gpu", "8"}, {"volcano.sh/queue", "q1"}};
  struct Case {
    std::string selector;
    bool on_labels;
    bool on_none;  // labels absent (null)
  };
  const std::vector<Case> cases = {
      {"app=web", true, false},
      {"app=db", false, false},
      {"app!=db", true, true},
      {"app!=web", false, true},
      {"app in (db, web)", true, false},
      {"app notin (db, web)", false, true},
      {"missing notin (x)", true, true},
      {"missing!=x", true, true},
      {"app", true, false},
      {"!app", false, true},
      {"gpu>4", true, false},
      {"gpu>8", false, false},
      {"gpu<9", true, false},
      {"app>1", false, false},
      {"volcano.sh/queue=q1,tier=front", true, false},
      {"volcano.sh/queue=q1,tier=back", false, false},
      {"", true, true},
  };
  for (const Case& c : cases) {
    Result<LabelSelector> s = LabelSelector::Parse(c.selector);
    ASSERT_TRUE(s.ok()) << c.selector << ": " << s.status().ToString();
    EXPECT_EQ(s->Matches(labels), c.on_labels) << c.selector;
    EXPECT_EQ(s->Matches(Json()), c.on_none) << c.selector;
    EXPECT_EQ(s->Matches(Json::object()), c.on_none) << c.selector;
  }
}

TEST(FieldSelectorTest, Parses) {
  struct Case {
    std::string text;
    std::vector<FieldSelector::Requirement> want;
  };
  const std::vector<Case> cases = {
      {"", {}},
      {"metadata.name=job1", {{"metadata.name", true, "job1"}}},
      {"metadata.name==job1", {{"metadata.name", true, "job1"}}},
      {"status.phase!=Running", {{"status.phase", false, "Running"}}},
      {"a=1,b!=2", {{"a", true, "1"}, {"b", false, "2"}}},
      {"a=x\\,y\\=z\\\\", {{"a", true, "x,y=z\\"}}},
      {"involvedObject.namespace=", {{"involvedObject.namespace", true, ""}}},
      {"a=1,", {{"a", true, "1"}}},
  };
  for (const Case& c : cases) {
    Result<FieldSelector> s = FieldSelector::Parse(c.text);
    ASSERT_TRUE(s.ok()) << c.text << ": " << s.status().ToString();
    ASSERT_EQ(s->requirements().size(), c.want.size()) << c.text;
    for (size_t i = 0; i < c.want.size(); ++i) {
      EXPECT_EQ(s->requirements()[i].field, c.want[i].field) << c.text;
      EXPECT_EQ(s->requirements()[i].equals, c.want[i].equals) << c.text;
      EXPECT_EQ(s->requirements()[i].value, c.want[i].value) << c.text;
    }
  }
}

TEST(FieldSelectorTest, BadSyntax) {
  for (std::string text : {"metadata.name", "=x", "a=b=c", "a=b\\x", "a=b\\", "a in (b)"}) {
    Result<FieldSelector> s = FieldSelector::Parse(text);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(text), std::string::npos) << s.status().message();
  }
}

TEST(FieldSelectorTest, Matches) {
  const Json pod = {{"metadata", {{"name", "p1"}, {"namespace", "default"}}},
                    {"spec", {{"nodeName", "n1"}, {"priority", 5}, {"hostNetwork", false}}},
                    {"status", {{"phase", "Running"}}}};
  struct Case {
    std::string selector;
    bool want;
  };
  const std::vector<Case> cases = {
      {"metadata.name=p1", true},
      {"metadata.name=p2", false},
      {"metadata.name!=p2", true},
      {"metadata.name=p1,status.phase=Running", true},
      {"metadata.name=p1,status.phase!=Running", false},
      {"spec.priority=5", true},
      {"spec.hostNetwork=false", true},
      {"spec.schedulerName=", true},
      {"spec.schedulerName!=", false},
      {"metadata.name.x=", true},
      {"", true},
  };
  for (const Case& c : cases) {
    Result<FieldSelector> s = FieldSelector::Parse(c.selector);
    ASSERT_TRUE(s.ok()) << c.selector;
    EXPECT_EQ(s->Matches(pod), c.want) << c.selector;
  }
}

// MayMatchCompact never refuses what Matches accepts, on the compact text the server stores,
// and refuses an `=` term whose key and value appear nowhere (another node's pod).
TEST(FieldSelectorTest, MayMatchCompactIsANecessaryCondition) {
  const Json pod = {{"metadata", {{"name", "p1"}, {"namespace", "default"}, {"uid", "a\"b"}}},
                    {"spec", {{"nodeName", "n1"}, {"priority", 5}, {"hostNetwork", false}}},
                    {"status", {{"phase", "Running"}}}};
  const std::string compact = pod.dump();
  for (std::string selector :
       {"metadata.name=p1", "metadata.name!=p2", "metadata.name=p1,status.phase=Running",
        "spec.priority=5", "spec.hostNetwork=false", "spec.schedulerName=", "metadata.name.x=",
        "metadata.uid=a\"b", "spec.nodeName=n1", "metadata.resourceVersion=7", ""}) {
    Result<FieldSelector> s = FieldSelector::Parse(selector);
    ASSERT_TRUE(s.ok()) << selector;
    if (s->Matches(pod) || selector == "metadata.resourceVersion=7") {
      EXPECT_TRUE(s->MayMatchCompact(compact)) << selector;
    }
  }
  for (std::string selector : {"spec.nodeName=n2", "metadata.name=p2",
                               "spec.nodeName=n1,status.phase=Failed", "spec.priority=6"}) {
    Result<FieldSelector> s = FieldSelector::Parse(selector);
    ASSERT_TRUE(s.ok()) << selector;
    EXPECT_FALSE(s->Matches(pod)) << selector;
    EXPECT_FALSE(s->MayMatchCompact(compact)) << selector;
  }
  // Bytes that are not UTF-8 in a term (from a URL) neither throw nor match.
  Result<FieldSelector> bad = FieldSelector::Parse(
      "spec.nodeName=n\xff"
      "1");
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(bad->Matches(pod));
  EXPECT_FALSE(bad->MayMatchCompact(compact));
}

// The label form: never refuses what Matches accepts, refuses a job's pod for another job.
TEST(LabelSelectorTest, MayMatchCompactIsANecessaryCondition) {
  const Json pod = {
      {"metadata",
       {{"name", "p1"}, {"labels", {{"volcano.sh/job-name", "job-1"}, {"tier", ""}, {"n", "7"}}}}}};
  const std::string compact = pod.dump();
  const Json& labels = pod["metadata"]["labels"];
  for (std::string selector :
       {"volcano.sh/job-name=job-1", "volcano.sh/job-name==job-1", "volcano.sh/job-name!=job-2",
        "volcano.sh/job-name in (job-0,job-1)", "tier", "tier=", "!missing", "n>5",
        "volcano.sh/job-name notin (job-2)", "volcano.sh/job-name=job-1,tier", ""}) {
    Result<LabelSelector> s = LabelSelector::Parse(selector);
    ASSERT_TRUE(s.ok()) << selector;
    EXPECT_TRUE(s->Matches(labels)) << selector;
    EXPECT_TRUE(s->MayMatchCompact(compact)) << selector;
  }
  for (std::string selector : {"volcano.sh/job-name=job-12", "volcano.sh/job-name in (job-2)",
                               "missing", "tier=x", "volcano.sh/job-name=job-1,missing"}) {
    Result<LabelSelector> s = LabelSelector::Parse(selector);
    ASSERT_TRUE(s.ok()) << selector;
    EXPECT_FALSE(s->Matches(labels)) << selector;
    EXPECT_FALSE(s->MayMatchCompact(compact)) << selector;
  }
}

}  // namespace
}  // namespace etna::api::codec
