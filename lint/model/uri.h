#pragma once
// Paths as URIs (SARIF artifact locations, the language server's document URIs) and back.
#include <string>
#include <string_view>

namespace parlint {

// Percent-encodes a path as a URI path: unreserved characters (RFC 3986 §2.3) and `/` stay.
std::string percent_encode_path(std::string_view path);

// Decodes %XX escapes; a `%` not followed by two hex digits stays as it is.
std::string percent_decode(std::string_view s);

}  // namespace parlint
