#include "lint/lsp/message_transport.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace parlint::lsp {
namespace {

constexpr std::size_t kMaxHeaderLine = 8192;
constexpr int kMaxHeaderLines = 32;

bool iequals_prefix(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

std::optional<std::string> MessageReader::header_line(bool& too_long) {
  std::string line;
  too_long = false;
  int c;
  while ((c = in_.get()) != std::char_traits<char>::eof()) {
    if (c == '\n') {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (line.size() < kMaxHeaderLine)
      line.push_back(static_cast<char>(c));
    else
      too_long = true;  // keep consuming to the end of the line, but not storing
  }
  if (line.empty()) return std::nullopt;
  return line;
}

Incoming MessageReader::next() {
  std::optional<std::size_t> length;
  std::string problem;
  int lines = 0;
  bool any = false;
  for (;;) {
    bool too_long = false;
    auto line = header_line(too_long);
    if (!line) return {Incoming::Kind::kEnd, {}, {}};
    if (line->empty()) {
      if (!any) continue;  // stray blank lines between messages
      break;
    }
    any = true;
    if (++lines > kMaxHeaderLines) problem = "too many header lines";
    if (too_long) {
      problem = "header line longer than 8192 bytes";
      continue;
    }
    if (iequals_prefix(*line, "content-length:")) {
      std::string_view v(*line);
      v.remove_prefix(15);
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
      std::size_t n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || v.empty())
        problem = "invalid Content-Length '" + std::string(v.substr(0, 40)) + "'";
      else
        length = n;
    } else if (line->find(':') == std::string::npos) {
      problem = "malformed header line";
    }
  }
  if (!problem.empty() || !length) {
    // Without a trustworthy length the body cannot be found; the next header starts the next attempt.
    return {Incoming::Kind::kFramingError, {}, problem.empty() ? "missing Content-Length header" : problem};
  }
  if (*length > max_body_) {
    // Skip the body in chunks: the limit bounds memory, not only parsing.
    std::vector<char> sink(64 * 1024);
    std::size_t left = *length;
    while (left > 0 && in_) {
      in_.read(sink.data(), static_cast<std::streamsize>(std::min(left, sink.size())));
      left -= static_cast<std::size_t>(in_.gcount());
      if (in_.gcount() == 0) break;
    }
    return {Incoming::Kind::kFramingError,
            {},
            "message of " + std::to_string(*length) + " bytes is over the " +
                std::to_string(max_body_ >> 20) + " MiB limit; refused"};
  }
  std::string body(*length, '\0');
  in_.read(body.data(), static_cast<std::streamsize>(*length));
  if (static_cast<std::size_t>(in_.gcount()) != *length) return {Incoming::Kind::kEnd, {}, {}};
  auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return {Incoming::Kind::kFramingError, {}, "the message body is not valid JSON"};
  return {Incoming::Kind::kMessage, std::move(json), {}};
}

void MessageWriter::send(const nlohmann::json& message) {
  std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out_.flush();
}

}  // namespace parlint::lsp
