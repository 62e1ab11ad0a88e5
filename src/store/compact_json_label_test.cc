// MetadataLabel against what the server stores and what it must not be fooled by.
#include "store/compact_json_label.h"

#include <gtest/gtest.h>

namespace etna::store {
namespace {

constexpr char kJob[] = "volcano.sh/job-name";

TEST(MetadataLabelTest, ReadsTheLabelOfMetadataOnly) {
  EXPECT_EQ(MetadataLabel(
                R"({"metadata":{"name":"p","labels":{"a":"1","volcano.sh/job-name":"j"}}})", kJob),
            "j");
  // Members before metadata and before labels, of every kind, are stepped over.
  EXPECT_EQ(
      MetadataLabel(R"({"kind":"Pod","n":-1.5e3,"t":true,"x":null,"o":{"s":"}\"{","a":[[1],{}]},)"
                    R"("metadata":{"uid":"u","annotations":{"volcano.sh/job-name":"no"},)"
                    R"("labels":{"volcano.sh/job-name":"yes"}}})",
                    kJob),
      "yes");
  // Whitespace anywhere JSON allows it.
  EXPECT_EQ(MetadataLabel(
                "{ \"metadata\" : {\n \"labels\" : { \"volcano.sh/job-name\" : \"w\" } } }", kJob),
            "w");
  // Escapes in the value are decoded.
  EXPECT_EQ(MetadataLabel(R"({"metadata":{"labels":{"volcano.sh/job-name":"a\"b\u0041"}}})", kJob),
            "a\"bA");
}

TEST(MetadataLabelTest, NothingWhenTheLabelIsNotThere) {
  EXPECT_EQ(MetadataLabel(R"({"metadata":{"labels":{"app":"x"}}})", kJob), std::nullopt);
  EXPECT_EQ(MetadataLabel(R"({"metadata":{"labels":{}}})", kJob), std::nullopt);
  EXPECT_EQ(MetadataLabel(R"({"metadata":{"name":"p"}})", kJob), std::nullopt);
  // A pod template's labels are not the object's.
  EXPECT_EQ(MetadataLabel(R"({"metadata":{"name":"d"},"spec":{"template":{"metadata":)"
                          R"({"labels":{"volcano.sh/job-name":"j"}}}}})",
                          kJob),
            std::nullopt);
  // Not a string, or not JSON.
  EXPECT_EQ(MetadataLabel(R"({"metadata":{"labels":{"volcano.sh/job-name":7}}})", kJob),
            std::nullopt);
  for (const char* bad :
       {"", "not json", "{", R"({"metadata":{"labels":{"volcano.sh/job-name":)",
        R"({"metadata":{"labels":{"volcano.sh/job-name":"unterminated)", R"(["metadata"])",
        R"({"metadata":{"labels":{"volcano.sh/job-name":"\)"}) {
    EXPECT_EQ(MetadataLabel(bad, kJob), std::nullopt) << bad;
  }
}

}  // namespace
}  // namespace etna::store
