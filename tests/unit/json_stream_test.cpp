// JsonStream writes, piece by piece, the very text nlohmann's dump(2) gives for the whole document: the
// JSON and SARIF reports' bytes must not change because they are no longer built as one tree.
#include "lint/reporters/json_stream.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

namespace parlint {
namespace {

using json = nlohmann::ordered_json;

std::string dumped(const json& doc) {
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// Writes `value` through the stream: its containers opened and closed one by one down to `depth`, the
// values below that as whole members or items.
void write(JsonStream& stream, const json& value, std::string_view key, int depth) {
  if (depth == 0 || !value.is_structured()) {
    if (key.empty())
      stream.item(value);
    else
      stream.member(key, value);
    return;
  }
  if (value.is_object()) {
    stream.begin_object(key);
    for (const auto& [k, v] : value.items()) write(stream, v, k, depth - 1);
  } else {
    stream.begin_array(key);
    for (const auto& v : value) write(stream, v, {}, depth - 1);
  }
  stream.end();
}

std::string streamed(const json& doc, int depth) {
  std::ostringstream out;
  JsonStream stream(out);
  write(stream, doc, {}, depth);
  return out.str();
}

json random_value(std::mt19937& rng, int depth) {
  switch (depth == 0 ? rng() % 4 : rng() % 6) {
    case 0:
      return static_cast<int>(rng() % 1000) - 500;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return nullptr;
    case 3: {
      // Text with quotes, escapes, control bytes and invalid UTF-8 (replaced, as dump() replaces it).
      static const char* const kTexts[] = {
          "",        "plain", "a \"quoted\" word", "tab\there\nnewline", "\xff\xfe not UTF-8", "caf\xc3\xa9",
          "\x01\x1f"};
      return kTexts[rng() % 7];
    }
    case 4: {
      json a = json::array();
      for (unsigned i = 0, n = rng() % 4; i < n; ++i) a.push_back(random_value(rng, depth - 1));
      return a;
    }
    default: {
      json o = json::object();
      for (unsigned i = 0, n = rng() % 4; i < n; ++i)
        o["key_" + std::to_string(i)] = random_value(rng, depth - 1);
      return o;
    }
  }
}

TEST(JsonStream, WritesWhatDumpWritesForTheWholeDocument) {
  std::mt19937 rng(44);
  for (int i = 0; i < 500; ++i) {
    json doc = json::object();
    for (unsigned k = 0, n = rng() % 5; k < n; ++k) doc["member_" + std::to_string(k)] = random_value(rng, 4);
    for (int depth = 1; depth <= 5; ++depth)
      ASSERT_EQ(streamed(doc, depth), dumped(doc)) << "document " << i << ", streamed to depth " << depth;
  }
}

TEST(JsonStream, EmptyContainersAreClosedOnTheirLine) {
  json doc = {{"diagnostics", json::array()}, {"nested", {{"empty", json::object()}, {"list", {1, 2}}}}};
  EXPECT_EQ(streamed(doc, 3), dumped(doc));
  EXPECT_EQ(streamed(json::object(), 1), "{}\n");
}

}  // namespace
}  // namespace parlint
