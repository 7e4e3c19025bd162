#pragma once
// JSON-RPC 2.0 framing over a byte stream (LSP base protocol): `Content-Length: N\r\n\r\n` + N bytes
// of JSON. Malformed framing and oversized messages become errors the caller answers; the reader then
// goes on with the next header, so no input stops the server or makes it read without bound.
#include <cstddef>
#include <istream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace parlint::lsp {

struct Incoming {
  enum class Kind { kMessage, kFramingError, kEnd } kind = Kind::kEnd;
  nlohmann::json body;  // kMessage
  std::string error;    // kFramingError: why the bytes were not a message
};

class MessageReader {
 public:
  explicit MessageReader(std::istream& in, std::size_t max_body = 64u << 20) : in_(in), max_body_(max_body) {}
  Incoming next();

 private:
  // One header line without its CR LF; nullopt at the end of the stream. Over-long lines are cut.
  std::optional<std::string> header_line(bool& too_long);
  std::istream& in_;
  std::size_t max_body_;
};

// Writes whole messages; safe to call from the reader thread and the lint worker at once.
class MessageWriter {
 public:
  explicit MessageWriter(std::ostream& out) : out_(out) {}
  void send(const nlohmann::json& message);

 private:
  std::ostream& out_;
  std::mutex mutex_;
};

}  // namespace parlint::lsp
