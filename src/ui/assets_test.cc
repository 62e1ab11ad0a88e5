#include "ui/assets.h"

#include <gtest/gtest.h>

namespace etna::ui {
namespace {

TEST(UiAssetsTest, FilesAreEmbeddedWhole) {
  auto index = FindAsset("index.html");
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_TRUE(index->body.starts_with("<!doctype html>"));
  EXPECT_TRUE(index->body.ends_with("</html>\n")) << "the file was cut short";
  auto app = FindAsset("app.js");
  ASSERT_TRUE(app.has_value());
  EXPECT_EQ(app->content_type, "text/javascript; charset=utf-8");
}

TEST(UiAssetsTest, PageRoutesGetTheShellAndUnknownFilesNothing) {
  auto root = FindAsset("");
  auto page = FindAsset("jobs");
  ASSERT_TRUE(root.has_value());
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(root->body, FindAsset("index.html")->body);
  EXPECT_EQ(page->body, root->body);
  EXPECT_FALSE(FindAsset("missing.js").has_value());
  EXPECT_FALSE(FindAsset("../etc/passwd").has_value());
  EXPECT_FALSE(FindAsset("sub/app.js").has_value());
}

}  // namespace
}  // namespace etna::ui
