#include "lint/engine/fix/file_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace parlint {
namespace fs = std::filesystem;

namespace {

std::string errno_text() {
  return std::strerror(errno);
}

// Closes the descriptor and removes the temporary file unless it was renamed into place.
class TemporaryFile {
 public:
  explicit TemporaryFile(std::string pattern) : name_(std::move(pattern)) {
    std::vector<char> buf(name_.begin(), name_.end());
    buf.push_back('\0');
    fd_ = ::mkstemp(buf.data());
    created_ = fd_ >= 0;
    if (created_) name_ = buf.data();
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (created_ && !kept_) ::unlink(name_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  bool close() {
    int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }
  void keep() { kept_ = true; }

 private:
  std::string name_;
  int fd_ = -1;
  bool created_ = false;
  bool kept_ = false;
};

}  // namespace

std::optional<std::string> replace_file_text(const std::string& path, std::string_view read_text,
                                             std::string_view new_text) {
  std::error_code ec;
  // Through a symbolic link to the file it names: the link stays a link.
  fs::path target = fs::canonical(path, ec);
  if (ec) return "cannot resolve the path (" + ec.message() + "); not fixed";
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return "cannot stat (" + errno_text() + "); not fixed";
  if (!S_ISREG(st.st_mode)) return "not a regular file; fixes are not written to it";
  if (::access(target.c_str(), W_OK) != 0) return "not writable (" + errno_text() + "); not fixed";
  // Changed on disk between the read and now (an editor saved it): the user's text wins.
  std::ifstream in(target, std::ios::binary);
  std::string now((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && in.fail()) return "cannot read it again before writing; not fixed";
  if (now != read_text) return "changed on disk while parlint was fixing it; not overwritten";
  TemporaryFile tmp(target.string() + ".parlint-XXXXXX");
  if (tmp.fd() < 0) return "cannot create a temporary file next to it (" + errno_text() + "); not fixed";
  std::string_view rest = new_text;
  while (!rest.empty()) {
    ssize_t n = ::write(tmp.fd(), rest.data(), rest.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return "cannot write the fixed text (" + errno_text() + "); not fixed";
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  if (::fchmod(tmp.fd(), st.st_mode & 07777) != 0)
    return "cannot keep the file's mode (" + errno_text() + ")";
  if (::fsync(tmp.fd()) != 0) return "cannot flush the fixed text (" + errno_text() + "); not fixed";
  if (!tmp.close()) return "cannot close the fixed text (" + errno_text() + "); not fixed";
  if (::rename(tmp.name().c_str(), target.c_str()) != 0)
    return "cannot replace the file (" + errno_text() + "); not fixed";
  tmp.keep();
  return std::nullopt;
}

}  // namespace parlint
