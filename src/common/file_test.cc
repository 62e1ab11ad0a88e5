#include "common/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

namespace etna {
namespace {

namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("etna_file_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(FileTest, WritesAtomicallyAndReadsTheBytesBack) {
  std::string bytes("line\r\n\0binary", 13);
  ASSERT_TRUE(WriteFileAtomically(Path("a"), bytes, 0600).ok());
  EXPECT_EQ(*ReadFile(Path("a")), bytes);
  EXPECT_FALSE(fs::exists(Path("a.tmp")));
  struct stat st {};
  ASSERT_EQ(::stat(Path("a").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  ASSERT_TRUE(WriteFileAtomically(Path("a"), "new", 0644).ok());
  EXPECT_EQ(*ReadFile(Path("a")), "new");
}

TEST_F(FileTest, AFailedWriteLeavesNoPartialFileBehind) {
  // A non-empty directory in the way: the data is written and synced, the rename fails.
  fs::create_directories(Path("a/inside"));
  Status s = WriteFileAtomically(Path("a"), "data", 0600);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot rename"), std::string::npos) << s.ToString();
  EXPECT_FALSE(fs::exists(Path("a.tmp")));
  EXPECT_TRUE(fs::is_directory(Path("a/inside")));
}

TEST_F(FileTest, ReadOfAMissingFileNamesThePath) {
  auto r = ReadFile(Path("missing"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(Path("missing")), std::string::npos);
}

TEST_F(FileTest, WriteIntoAMissingDirectoryNamesThePath) {
  Status s = WriteFileAtomically(Path("no/such/file"), "x", 0600);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(Path("no/such/file")), std::string::npos);
}

}  // namespace
}  // namespace etna
