//===- PreambleStoreTest.cpp - Tests for the store of parsed prefixes -----===//

#include "PreambleStore.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <thread>

using namespace apistamp;

namespace {

class PreambleStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("apistamp-store", Dir));
    Header = (Dir + "/h.h").str();
    write(Header, "int h();\n");
    Absent = (Dir + "/inc/h.h").str();
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  static void write(const std::string &Path, llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    OS << Text;
  }

  /// An entry that read Header and looked for Absent in vain.
  PreambleEntry entry(PreambleStore &Store) {
    PreambleEntry E;
    E.Bounds = 20;
    E.Files.push_back({Header, *Store.currentHash(Header)});
    E.Absent.push_back(Absent);
    E.Region.Inclusions.push_back(Header);
    E.Region.InclusionStarts.push_back(7);
    E.Region.Comments.push_back({0, 3});
    E.Region.MacroUses.push_back({-1, 5});
    return E;
  }

  /// Stores entry() with \p Pch under \p Key.
  void put(PreambleStore &Store, llvm::StringRef Key, llvm::StringRef Pch) {
    PreambleEntry E = entry(Store);
    Store.store(Key, E, Pch);
  }

  std::string store() const { return (Dir + "/preambles").str(); }

  llvm::SmallString<128> Dir;
  std::string Header, Absent;
};

TEST_F(PreambleStoreTest, StoredEntryComesBackWithItsPch) {
  PreambleStore Store(store(), 1 << 20);
  put(Store, "k", "PCH bytes");
  EXPECT_EQ(Store.writeError(), "");
  std::optional<LoadedPreamble> Loaded = Store.lookup("k");
  ASSERT_TRUE(Loaded);
  EXPECT_EQ(Loaded->Pch->getBuffer(), "PCH bytes");
  EXPECT_EQ(Loaded->Entry.Bounds, 20u);
  EXPECT_EQ(Loaded->Entry.Region.Inclusions, std::vector<std::string>{Header});
  EXPECT_EQ(Loaded->Entry.Region.Comments, (std::vector<RegionMark>{{0, 3}}));
  EXPECT_EQ(Loaded->Entry.Region.MacroUses, (std::vector<RegionMark>{{-1, 5}}));
  EXPECT_FALSE(Store.lookup("other"));
}

TEST_F(PreambleStoreTest, ChangedFileIsAMiss) {
  {
    PreambleStore Store(store(), 1 << 20);
    put(Store, "k", "PCH");
  }
  write(Header, "int h(int);\n");
  PreambleStore Later(store(), 1 << 20); // Hashes are memoised per run.
  EXPECT_FALSE(Later.lookup("k"));
}

TEST_F(PreambleStoreTest, PathFoundNowIsAMiss) {
  {
    PreambleStore Store(store(), 1 << 20);
    put(Store, "k", "PCH");
  }
  ASSERT_FALSE(llvm::sys::fs::create_directories(Dir + "/inc"));
  write(Absent, "int shadow();\n");
  PreambleStore Later(store(), 1 << 20);
  EXPECT_FALSE(Later.lookup("k"));
}

TEST_F(PreambleStoreTest, AlteredPchIsAMiss) {
  PreambleStore Store(store(), 1 << 20);
  put(Store, "k", "PCH bytes");
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(store(), EC), End; It != End;
       It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".pch"))
      write(It->path(), "PCH bytez");
  EXPECT_FALSE(Store.lookup("k"));
}

TEST_F(PreambleStoreTest, HostileEntriesAreMisses) {
  PreambleStore Store(store(), 1 << 20);
  put(Store, "k", "PCH");
  std::string Entry = store() + "/k.json";
  for (llvm::StringRef Text :
       {"", "{", "[]", "{\"bounds\": 1}", "null",
        // Deeply nested: refused before llvm::json's recursive parser.
        "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]"
        "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"}) {
    write(Entry, Text);
    EXPECT_FALSE(Store.lookup("k")) << Text.str();
  }
}

TEST_F(PreambleStoreTest, MarkOutsideInclusionsIsRefused) {
  PreambleStore Store(store(), 1 << 20);
  PreambleEntry E = entry(Store);
  E.Region.Comments.push_back({1, 0}); // There is one inclusion: 0.
  Store.store("k", E, "PCH");
  EXPECT_FALSE(Store.lookup("k"));
}

TEST_F(PreambleStoreTest, LeastRecentlyUsedIsEvictedFirst) {
  // Each entry is a PCH of 1000 bytes and a JSON of a few hundred.
  PreambleStore Store(store(), 3000);
  put(Store, "old", std::string(1000, 'o'));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  put(Store, "used", std::string(1000, 'u'));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(Store.lookup("old")); // Now the most recently used.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  put(Store, "new", std::string(1000, 'n'));
  EXPECT_TRUE(Store.lookup("old"));
  EXPECT_FALSE(Store.lookup("used"));
  EXPECT_TRUE(Store.lookup("new"));
  EXPECT_LE(PreambleStore::sizeOf(store()), 3000u);
  EXPECT_GE(Store.Evicted.load(), 1u);
}

TEST_F(PreambleStoreTest, UnwritableStoreLosesOnlyTheEntry) {
  write(store(), "a file where the directory should be");
  PreambleStore Store(store(), 1 << 20);
  put(Store, "k", "PCH");
  EXPECT_NE(Store.writeError(), "");
  EXPECT_FALSE(Store.lookup("k"));
}

} // namespace
