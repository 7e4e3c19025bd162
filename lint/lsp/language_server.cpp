#include "lint/lsp/language_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "generated/version.h"
#include "lint/engine/fix/suppression_edit.h"
#include "lint/lsp/layout_hover.h"
#include "lint/lsp/message_transport.h"
#include "lint/lsp/text_document.h"
#include "lint/model/source_files.h"
#include "lint/model/uri.h"
#include "parsers/shell/uncalled_function_memo.h"
#include "parsers/tree_sitter/tree_cache.h"
#include "rules/api/rule.h"

namespace parlint::lsp {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// JSON-RPC and LSP error codes.
constexpr int kParseError = -32700, kInvalidRequest = -32600, kMethodNotFound = -32601,
              kInvalidParams = -32602, kServerNotInitialized = -32002;

std::string uri_to_path(const std::string& uri) {
  if (uri.starts_with("file://")) {
    std::string_view rest(uri);
    rest.remove_prefix(7);
    auto slash = rest.find('/');  // skip an authority ("file://localhost/x")
    if (slash != std::string_view::npos) rest.remove_prefix(slash);
    return normalized_path(percent_decode(rest));
  }
  return uri;  // untitled: and other schemes lint under their own name
}

std::string path_to_uri(const std::string& path) {
  return "file://" + percent_encode_path(path);
}

// Unsaved documents named without an extension still lint as what the editor says they are.
std::string lint_path_for(const std::string& path, const std::string& language) {
  if (path.find("://") == std::string::npos && path.find(':') == std::string::npos) return path;
  if (language == "yaml") return path + ".yaml";
  if (language == "python") return path + ".py";
  if (language == "shellscript" || language == "sh" || language == "bash") return path + ".sh";
  return path;
}

struct LintContribution {
  int version = 0;
  std::map<std::string, std::vector<Diagnostic>> by_path;  // normalized path -> findings located there
  std::set<std::string> depends_on;                        // normalized paths read while linting
};

class LanguageServer {
 public:
  LanguageServer(std::istream& in, std::ostream& out, const ServerOptions& options)
      : reader_(in, options.max_message_bytes), writer_(out), options_(options) {
    options_.engine.jobs = 1;
    // Every rule, unless a .parlint.yaml next to the document says otherwise.
    if (auto all = RuleSelection::make({}, {})) options_.engine.rules = std::move(*all);
  }

  int run() {
    worker_ = std::thread([this] { worker_loop(); });
    int code = 1;
    for (;;) {
      Incoming m = reader_.next();
      if (m.kind == Incoming::Kind::kEnd) break;
      if (m.kind == Incoming::Kind::kFramingError) {
        respond_error(nullptr, kParseError, m.error);
        continue;
      }
      if (dispatch(m.body)) {
        code = shutdown_requested_ ? 0 : 1;
        break;
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
    return code;
  }

 private:
  // ---- JSON-RPC -------------------------------------------------------------------------------
  void respond(const json& id, json result) {
    writer_.send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  }
  void respond_error(const json& id, int code, const std::string& message) {
    writer_.send({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, json params) {
    writer_.send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  static void log(const std::string& message) { write_stderr("parlint lsp: " + message + "\n"); }
  // PARLINT_LSP_TRACE=1: the worker's decisions on stderr, for debugging scheduling.
  static void trace(const std::string& message) {
    static const bool on = std::getenv("PARLINT_LSP_TRACE") != nullptr;
    if (on) write_stderr("parlint lsp trace: " + message + "\n");
  }
  // The reader and the worker both write to std::cerr, which is unsynchronized after
  // sync_with_stdio(false): one lock keeps each line whole and the stream's buffer free of races.
  static void write_stderr(const std::string& line) {
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    std::cerr << line << std::flush;
  }

  // Returns true when the server should exit.
  bool dispatch(const json& msg) {
    if (!msg.is_object()) {
      respond_error(nullptr, kInvalidRequest, "a message must be a JSON object");
      return false;
    }
    bool has_id = msg.contains("id");
    json id = has_id ? msg["id"] : json(nullptr);
    if (has_id && !(id.is_number_integer() || id.is_string() || id.is_null())) id = nullptr;
    if (!msg.contains("method")) {
      if (!has_id) respond_error(nullptr, kInvalidRequest, "a message needs a method or an id");
      return false;  // a response to one of our requests (client/registerCapability)
    }
    if (!msg["method"].is_string()) {
      if (has_id) respond_error(id, kInvalidRequest, "method must be a string");
      return false;
    }
    std::string method = msg["method"];
    json params = msg.contains("params") ? msg["params"] : json::object();
    if (method == "exit") return true;
    try {
      if (has_id)
        request(id, method, params);
      else
        notification(method, params);
    } catch (const json::exception& e) {
      if (has_id)
        respond_error(id, kInvalidParams, std::string("invalid params: ") + e.what());
      else
        log(method + ": invalid params: " + e.what());
    }
    return false;
  }

  void request(const json& id, const std::string& method, const json& params) {
    if (method == "initialize") {
      respond(id, initialize(params));
      return;
    }
    if (!initialized_) {
      respond_error(id, kServerNotInitialized, "the server has not been initialized");
      return;
    }
    if (shutdown_requested_) {
      respond_error(id, kInvalidRequest, "the server is shutting down");
      return;
    }
    if (method == "shutdown") {
      shutdown_requested_ = true;
      respond(id, nullptr);
    } else if (method == "textDocument/hover") {
      respond(id, hover(params));
    } else if (method == "textDocument/codeAction") {
      respond(id, code_actions(params));
    } else {
      respond_error(id, kMethodNotFound, "unknown method " + method);
    }
  }

  void notification(const std::string& method, const json& params) {
    if (!initialized_) return;  // the spec drops notifications before initialize (exit aside)
    if (method == "initialized") {
      register_config_watch();
    } else if (method == "textDocument/didOpen") {
      did_open(params);
    } else if (method == "textDocument/didChange") {
      did_change(params);
    } else if (method == "textDocument/didSave") {
      schedule(params.at("textDocument").at("uri").get<std::string>(), true);
    } else if (method == "textDocument/didClose") {
      did_close(params);
    } else if (method == "workspace/didChangeWatchedFiles") {
      did_change_watched_files(params);
    } else if (method == "workspace/didChangeConfiguration") {
      schedule_all();
    } else if (method == "$/cancelRequest" || method.starts_with("$/")) {
      // Requests are answered in order as they arrive, so a cancellation always finds its request
      // answered already; the spec lets a server ignore it then.
    } else {
      log("ignored unknown notification " + method);
    }
  }

  // ---- lifecycle ------------------------------------------------------------------------------
  json initialize(const json& params) {
    // The worker reads encoding_ and the debounce under mu_, and a client may send initialize again.
    std::lock_guard<std::mutex> lock(mu_);
    initialized_ = true;
    encoding_ = PositionEncoding::kUtf16;
    if (params.contains("capabilities")) {
      const json& caps = params["capabilities"];
      if (caps.contains("general") && caps["general"].contains("positionEncodings"))
        for (const auto& e : caps["general"]["positionEncodings"])
          if (e == "utf-8") encoding_ = PositionEncoding::kUtf8;
      if (caps.contains("workspace") && caps["workspace"].contains("didChangeWatchedFiles"))
        watch_dynamic_ = caps["workspace"]["didChangeWatchedFiles"].value("dynamicRegistration", false);
    }
    if (params.contains("initializationOptions") && params["initializationOptions"].is_object()) {
      const json& o = params["initializationOptions"];
      if (o.contains("debounceMs") && o["debounceMs"].is_number_integer())
        options_.debounce = std::chrono::milliseconds(std::clamp<int>(o["debounceMs"].get<int>(), 0, 5000));
    }
    return {{"capabilities",
             {{"positionEncoding", encoding_ == PositionEncoding::kUtf8 ? "utf-8" : "utf-16"},
              {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"hoverProvider", true},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix", "source.fixAll.parlint"}}}}}},
            {"serverInfo", {{"name", "parlint"}, {"version", PARLINT_VERSION}}}};
  }

  void register_config_watch() {
    if (!watch_dynamic_) return;
    writer_.send(
        {{"jsonrpc", "2.0"},
         {"id", "parlint-watch-config"},
         {"method", "client/registerCapability"},
         {"params",
          {{"registrations",
            {{{"id", "parlint-config"},
              {"method", "workspace/didChangeWatchedFiles"},
              {"registerOptions",
               {{"watchers",
                 {{{"globPattern", "**/.parlint.yaml"}}, {{"globPattern", "**/pyproject.toml"}}}}}}}}}}}});
  }

  // ---- documents ------------------------------------------------------------------------------
  void did_open(const json& params) {
    const json& td = params.at("textDocument");
    std::string uri = td.at("uri"), text = td.at("text"), language = td.value("languageId", "");
    int version = td.value("version", 0);
    {
      std::lock_guard<std::mutex> lock(mu_);
      docs_.insert_or_assign(uri,
                             TextDocument(uri, lint_path_for(uri_to_path(uri), language), text, version));
    }
    schedule(uri, true);
  }

  void did_change(const json& params) {
    const json& td = params.at("textDocument");
    std::string uri = td.at("uri");
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = docs_.find(uri);
      if (it == docs_.end()) {
        log("didChange for a document that is not open: " + uri);
        return;
      }
      TextDocument& doc = it->second;
      for (const auto& change : params.at("contentChanges")) {
        std::string text = change.at("text");
        if (change.contains("range")) {
          const json& r = change["range"];
          doc.edit({r.at("start").at("line"), r.at("start").at("character")},
                   {r.at("end").at("line"), r.at("end").at("character")}, text, encoding_);
        } else {
          doc.replace(std::move(text), doc.version());
        }
      }
      doc.set_version(td.value("version", doc.version() + 1));
    }
    schedule(uri, true);
  }

  void did_close(const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    std::set<std::string> touched;
    std::string path;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = docs_.find(uri);
      if (it == docs_.end()) return;
      path = normalized_path(it->second.path());
      docs_.erase(it);
      pending_.erase(uri);
      if (auto r = results_.find(uri); r != results_.end()) {
        for (const auto& [p, _] : r->second.by_path) touched.insert(p);
        results_.erase(r);
      }
      touched.insert(path);
      publish_locked(touched, uri);
    }
    // Documents that read the closed buffer now read the file on disk again.
    schedule_dependents(path);
  }

  void did_change_watched_files(const json& params) {
    bool config = false;
    for (const auto& change : params.at("changes")) {
      std::string path = uri_to_path(change.at("uri"));
      if (path.ends_with("/.parlint.yaml") || path == ".parlint.yaml" || path.ends_with("/pyproject.toml") ||
          path == "pyproject.toml")
        config = true;
      else
        schedule_dependents(path);
    }
    if (config) schedule_all();
  }

  // ---- scheduling and the lint worker ---------------------------------------------------------
  void schedule(const std::string& uri, bool with_dependents) {
    trace("schedule " + uri);
    std::string path;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = docs_.find(uri);
      if (it == docs_.end()) return;
      pending_.insert(uri);
      last_change_ = Clock::now();
      path = normalized_path(it->second.path());
    }
    if (with_dependents) schedule_dependents(path);
    cv_.notify_all();
  }

  void schedule_dependents(const std::string& path) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [uri, r] : results_)
        if (r.depends_on.count(path) && docs_.count(uri)) pending_.insert(uri);
      last_change_ = Clock::now();
    }
    cv_.notify_all();
  }

  void schedule_all() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (const auto& [uri, _] : docs_) pending_.insert(uri);
      last_change_ = Clock::now();
    }
    cv_.notify_all();
  }

  void worker_loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      // Wake on work, and every 100 ms to check that every open document's newest version has been
      // published or is queued: a safety net so no interleaving can leave a buffer with stale results.
      while (!stop_ && pending_.empty()) {
        cv_.wait_for(lock, std::chrono::milliseconds(100));
        requeue_stale_locked();
      }
      if (stop_) return;
      // Debounce: wait until the edits have been quiet for a moment; a burst of keystrokes lints once.
      while (!stop_ && Clock::now() < last_change_ + options_.debounce)
        cv_.wait_until(lock, last_change_ + options_.debounce);
      if (stop_) return;
      if (pending_.empty()) continue;  // a document closed during the quiet period
      std::string uri = *pending_.begin();
      pending_.erase(pending_.begin());
      auto it = docs_.find(uri);
      if (it == docs_.end()) continue;
      // Snapshot the document and every open buffer, then lint without holding the lock.
      std::string path = it->second.path(), text = it->second.text();
      int version = it->second.version();
      SourceOverlay overlay;
      for (const auto& [u, d] : docs_) overlay.buffers[normalized_path(d.path())] = d.text();
      lock.unlock();
      trace("lint " + uri + " v" + std::to_string(version));
      LintContribution result = lint(path, std::move(text), version, overlay);
      lock.lock();
      it = docs_.find(uri);
      // The newest version wins: a result for an edited or closed document is dropped.
      if (it == docs_.end() || it->second.version() != version || pending_.count(uri)) {
        trace("drop " + uri + " v" + std::to_string(version) +
              (it == docs_.end() ? " (closed)" : " (now v" + std::to_string(it->second.version()) + ")"));
        continue;
      }
      trace("publish " + uri + " v" + std::to_string(version));
      std::set<std::string> touched;
      if (auto old = results_.find(uri); old != results_.end())
        for (const auto& [p, _] : old->second.by_path) touched.insert(p);
      for (const auto& [p, _] : result.by_path) touched.insert(p);
      touched.insert(normalized_path(path));
      results_[uri] = std::move(result);
      publish_locked(touched, "");
    }
  }

  // Queues every open document whose published results are older than its text (or missing).
  void requeue_stale_locked() {
    for (const auto& [uri, doc] : docs_) {
      auto r = results_.find(uri);
      if ((r == results_.end() || r->second.version != doc.version()) && !pending_.count(uri)) {
        trace("requeue " + uri + " v" + std::to_string(doc.version()));
        pending_.insert(uri);
      }
    }
  }

  LintContribution lint(const std::string& path, std::string text, int version, SourceOverlay& overlay) {
    LintContribution out;
    out.version = version;
    EngineOptions options = options_.engine;
    options.overlay = &overlay;  // open buffers in place of the disk copies; the paths read are recorded
    options.trees = &trees_;     // an edited buffer is reparsed from its last tree
    options.uncalled_functions = &uncalled_functions_;  // and its uncalled functions' walks replayed
    RunResult r = check_document(path, std::move(text), options);
    for (auto& cd : r.diagnostics) {
      std::string p =
          normalized_path(cd.diagnostic.location.path.empty() ? path : cd.diagnostic.location.path);
      out.by_path[p].push_back(std::move(cd.diagnostic));
    }
    for (const auto& e : r.errors) {
      Diagnostic d;
      d.code = "PL900";
      d.name = "syntax-error";
      d.severity = Severity::kError;
      d.message = e.message;
      d.location = {path, {{1, 1}, {1, 1}}};
      out.by_path[normalized_path(path)].push_back(std::move(d));
    }
    out.depends_on = overlay.read;
    return out;
  }

  // ---- diagnostics ----------------------------------------------------------------------------
  // The text a finding's positions refer to: the open buffer, else the file on disk.
  const SourceText* text_for(const std::string& path,
                             std::map<std::string, std::unique_ptr<SourceText>>& disk) {
    for (const auto& [_, d] : docs_)
      if (normalized_path(d.path()) == path) return &d.source();
    auto it = disk.find(path);
    if (it == disk.end())
      it = disk.emplace(path, std::make_unique<SourceText>(FileReader::disk().read(path).value_or(""))).first;
    return it->second.get();
  }

  json range_json(const SourceRange& r, const SourceText* text) {
    auto pos = [&](SourcePosition p) -> json {
      if (p.line <= 0) return {{"line", 0}, {"character", 0}};
      int character = text ? lsp_character(text->line(p.line), p.column, encoding_) : p.column - 1;
      return {{"line", p.line - 1}, {"character", character}};
    };
    SourcePosition end = r.end.line > 0 ? r.end : r.start;
    return {{"start", pos(r.start)}, {"end", pos(end)}};
  }

  json diagnostic_json(const Diagnostic& d, std::map<std::string, std::unique_ptr<SourceText>>& disk) {
    const SourceText* text = text_for(normalized_path(d.location.path), disk);
    int severity = d.severity == Severity::kError ? 1 : d.severity == Severity::kWarning ? 2 : 3;
    json out = {{"range", range_json(d.location.range, text)},
                {"severity", severity},
                {"code", d.code},
                {"codeDescription", {{"href", rule_docs_url(d.code, d.name)}}},
                {"source", "parlint"},
                {"message", d.help.empty() ? d.message : d.message + "\nhelp: " + d.help}};
    json related = json::array();
    for (const auto& r : d.related) {
      if (r.location.path.empty()) continue;
      std::string p = normalized_path(r.location.path);
      related.push_back(
          {{"location", {{"uri", uri_for(p)}, {"range", range_json(r.location.range, text_for(p, disk))}}},
           {"message", r.message}});
    }
    if (!related.empty()) out["relatedInformation"] = related;
    return out;
  }

  std::string uri_for(const std::string& normalized) {
    for (const auto& [uri, d] : docs_)
      if (normalized_path(d.path()) == normalized) return uri;
    return path_to_uri(normalized);
  }

  // Publishes the union of every open document's findings for each touched path. `closed_uri` is a
  // document just closed: its own diagnostics are cleared under its URI.
  void publish_locked(const std::set<std::string>& paths, const std::string& closed_uri) {
    std::map<std::string, std::unique_ptr<SourceText>> disk;
    for (const auto& p : paths) {
      json list = json::array();
      std::set<std::string> seen;  // a finding reported through two documents is shown once
      for (const auto& [_, r] : results_) {
        auto it = r.by_path.find(p);
        if (it == r.by_path.end()) continue;
        for (const auto& d : it->second) {
          json dj = diagnostic_json(d, disk);
          if (seen.insert(dj.dump()).second) list.push_back(std::move(dj));
        }
      }
      std::string uri = uri_for(p);
      if (!closed_uri.empty() && uri_to_path(closed_uri) == p) uri = closed_uri;
      json params = {{"uri", uri}, {"diagnostics", list}};
      for (const auto& [u, d] : docs_)
        if (u == uri) params["version"] = d.version();
      notify("textDocument/publishDiagnostics", params);
    }
  }

  // ---- code actions ---------------------------------------------------------------------------
  json code_actions(const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    std::string path, text;
    SourceOverlay overlay;
    std::vector<std::pair<std::string, std::string>> docs_snapshot;  // open documents: URI, path
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = docs_.find(uri);
      if (it == docs_.end()) return json::array();
      path = it->second.path();
      text = it->second.text();
      for (const auto& [u, d] : docs_) {
        overlay.buffers[normalized_path(d.path())] = d.text();
        docs_snapshot.emplace_back(u, d.path());
      }
    }
    FileKind kind = file_kind(path, std::string_view(text).substr(0, 4096));
    json actions = json::array();
    const json& context = params.at("context");
    // `only` filters by kind: "quickfix", "source", "source.fixAll" and our own name all select ours.
    auto wanted = [&](std::string_view kind_name) {
      if (!context.contains("only") || !context["only"].is_array()) return true;
      for (const auto& k : context["only"])
        if (k.is_string()) {
          std::string_view w = k.get_ref<const std::string&>();
          if (kind_name == w || (kind_name.starts_with(w) && kind_name[w.size()] == '.')) return true;
        }
      return false;
    };
    EngineOptions options = options_.engine;
    options.overlay = &overlay;
    TextDocument doc(uri, path, text, 0);
    std::string key = normalized_path(path);
    // Positions are converted in the text of the file an edit is in: this document, another open one, or
    // the disk copy of a file it reads (a sourced params.sh, where the value is written).
    std::map<std::string, std::unique_ptr<TextDocument>> other_docs;
    auto document_of = [&](const std::string& p) -> const TextDocument* {
      std::string k = normalized_path(p);
      if (k == key) return &doc;
      auto it = other_docs.find(k);
      if (it == other_docs.end()) {
        auto found = FileReader(options.max_file_size, &overlay).read(p);
        it = other_docs
                 .emplace(k, found ? std::make_unique<TextDocument>(path_to_uri(k), k, *found, 0) : nullptr)
                 .first;
      }
      return it->second.get();
    };
    auto edit_json = [&](const TextEdit& e) {
      const TextDocument& in = *document_of(e.location.path);
      LspPosition a = in.to_lsp(e.location.range.start, encoding_),
                  b = in.to_lsp(e.location.range.end, encoding_);
      return json{{"range",
                   {{"start", {{"line", a.line}, {"character", a.character}}},
                    {"end", {{"line", b.line}, {"character", b.character}}}}},
                  {"newText", e.new_text}};
    };
    // A rule's fix for each finding in the request (edits in this document only), preferred when safe.
    if (wanted("quickfix")) {
      RunResult here = check_document(path, text, options);
      for (const auto& diag : context.value("diagnostics", json::array())) {
        if (diag.value("source", "") != "parlint" || !diag.contains("code") || !diag["code"].is_string())
          continue;
        int line = diag.at("range").at("start").at("line");
        for (const auto& cd : here.diagnostics) {
          const Diagnostic& d = cd.diagnostic;
          if (!d.fix || d.code != diag["code"] || d.location.range.start.line != line + 1 ||
              normalized_path(d.location.path) != key ||
              !diag.value("message", d.message).starts_with(d.message))
            continue;
          bool readable = std::all_of(d.fix->edits.begin(), d.fix->edits.end(), [&](const TextEdit& e) {
            return document_of(e.location.path) != nullptr;
          });
          if (!readable) continue;
          json changes = json::object();
          for (const auto& e : d.fix->edits) {
            const TextDocument* in = document_of(e.location.path);
            std::string target = in == &doc ? uri : in->uri();
            // An open document keeps the URI the client gave it.
            for (const auto& [u, open] : docs_snapshot)
              if (normalized_path(open) == normalized_path(e.location.path)) target = u;
            if (!changes.contains(target)) changes[target] = json::array();
            changes[target].push_back(edit_json(e));
          }
          bool safe = d.fix->applicability == FixApplicability::kSafe;
          actions.push_back({{"title", "Fix " + d.code + ": " + d.fix->message + (safe ? "" : " (unsafe)")},
                             {"kind", "quickfix"},
                             {"isPreferred", safe},
                             {"diagnostics", json::array({diag})},
                             {"edit", {{"changes", changes}}}});
          break;
        }
      }
    }
    // Every safe fix of the document at once: the lines they change, replaced.
    if (wanted("source.fixAll.parlint")) {
      EngineOptions safe_only = options;
      safe_only.unsafe_fixes = false;
      FixedText fixed = fix_document(path, text, safe_only);
      if (!fixed.applied.empty() && fixed.text != text) {
        std::size_t head = 0;
        while (head < text.size() && head < fixed.text.size() && text[head] == fixed.text[head]) ++head;
        std::size_t tail = 0;
        while (tail < text.size() - head && tail < fixed.text.size() - head &&
               text[text.size() - 1 - tail] == fixed.text[fixed.text.size() - 1 - tail])
          ++tail;
        // Whole lines: from the start of the first changed line.
        while (head > 0 && text[head - 1] != '\n') --head;
        TextEdit whole{
            Location{path, {doc.source().position(head), doc.source().position(text.size() - tail)}},
            fixed.text.substr(head, fixed.text.size() - tail - head)};
        actions.push_back({{"title", fmt::format("Fix all safe parlint findings ({})", fixed.applied.size())},
                           {"kind", "source.fixAll.parlint"},
                           {"edit", {{"changes", {{uri, json::array({edit_json(whole)})}}}}}});
      }
    }
    if (!wanted("quickfix")) return actions;
    for (const auto& diag : context.value("diagnostics", json::array())) {
      if (diag.value("source", "") != "parlint" || !diag.contains("code") || !diag["code"].is_string())
        continue;
      std::string code = diag["code"];
      if (code == "PL901" || code == "PL902") continue;  // about suppression comments themselves
      int line = diag.at("range").at("start").at("line");
      auto edits = verified_suppression(path, text, kind, line, code, diag.value("message", ""), overlay);
      if (!edits) continue;
      json text_edits = json::array();
      for (const auto& e : *edits) {
        LspPosition at{e.line, 0};
        std::string_view l = doc.source().line(e.line + 1);
        at.character = encoding_ == PositionEncoding::kUtf8
                           ? static_cast<int>(e.byte)
                           : lsp_character(l, count_code_points(l.substr(0, e.byte)) + 1, encoding_);
        json pos = {{"line", at.line}, {"character", at.character}};
        text_edits.push_back({{"range", {{"start", pos}, {"end", pos}}}, {"newText", e.text}});
      }
      actions.push_back({{"title", "Suppress " + code + " with a parlint comment"},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"edit", {{"changes", {{uri, text_edits}}}}}});
    }
    return actions;
  }

  // The first candidate edit after which the finding is gone and nothing new is reported.
  std::optional<std::vector<LineEdit>> verified_suppression(const std::string& path, const std::string& text,
                                                            FileKind kind, int line, const std::string& code,
                                                            const std::string& message,
                                                            SourceOverlay& overlay) {
    EngineOptions options = options_.engine;
    options.overlay = &overlay;
    std::string key = normalized_path(path);
    auto findings = [&](const std::string& t) {
      std::multiset<std::string> out;
      for (const auto& cd : check_document(path, t, options).diagnostics)
        if (normalized_path(cd.diagnostic.location.path) == key)
          out.insert(cd.diagnostic.code + " " + cd.diagnostic.message);
      return out;
    };
    auto before = findings(text);
    for (const auto& candidate : suppression_candidates(text, kind, line, code)) {
      auto after = findings(apply_line_edits(text, candidate));
      // Gone: one fewer finding of this code; nothing new: every other finding is still there, the same.
      auto expected = before;
      for (auto it = expected.begin(); it != expected.end(); ++it)
        if (it->starts_with(code + " ") &&
            (message.empty() || message.starts_with(it->substr(code.size() + 1)))) {
          expected.erase(it);
          break;
        }
      if (after == expected) return candidate;
    }
    return std::nullopt;
  }

  // ---- hover ----------------------------------------------------------------------------------
  json hover(const json& params) {
    std::string uri = params.at("textDocument").at("uri");
    const json& p = params.at("position");
    std::string path, text;
    SourcePosition at;
    SourceOverlay overlay;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = docs_.find(uri);
      if (it == docs_.end()) return nullptr;
      path = it->second.path();
      text = it->second.text();
      at = it->second.from_lsp({p.at("line"), p.at("character")}, encoding_);
      for (const auto& [u, d] : docs_) overlay.buffers[normalized_path(d.path())] = d.text();
    }
    EngineOptions options = options_.engine;
    options.overlay = &overlay;
    PlanResult plan = plan_document(path, text, options);
    std::string key = normalized_path(path);
    const Job* best = nullptr;
    Key best_key = Key::kTensorModelParallelSize;
    SourceRange best_range;
    for (const auto& job : plan.jobs) {
      for (std::size_t k = 0; k < kKeyCount; ++k) {
        Key kk = static_cast<Key>(k);
        if (!is_layout_key(kk)) continue;
        const Fact* f = job->fact(kk);
        if (!f) continue;
        std::vector<Location> places{f->location};
        for (const auto& w : f->written_at) places.push_back(w.location);
        for (const auto& loc : places) {
          if (!loc.in_file() || normalized_path(loc.path) != key) continue;
          int last = std::max(loc.range.end.line, loc.range.start.line);
          if (at.line < loc.range.start.line || at.line > last) continue;
          if (!best) best = job.get(), best_key = kk, best_range = loc.range;
        }
      }
    }
    if (!best) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, std::unique_ptr<SourceText>> disk;
    return {{"contents", {{"kind", "markdown"}, {"value", layout_hover_markdown(*best, best_key)}}},
            {"range", range_json(best_range, text_for(key, disk))}};
  }

  MessageReader reader_;
  MessageWriter writer_;
  ServerOptions options_;
  PositionEncoding encoding_ = PositionEncoding::kUtf16;
  bool initialized_ = false, shutdown_requested_ = false, watch_dynamic_ = false;

  std::mutex mu_;  // guards everything below
  std::condition_variable cv_;
  std::map<std::string, TextDocument> docs_;  // by URI
  std::set<std::string> pending_;             // URIs waiting for a lint
  Clock::time_point last_change_{};
  std::map<std::string, LintContribution> results_;  // by the URI of the linted document
  bool stop_ = false;
  std::thread worker_;
  // The worker's alone (lint()): each buffer's last tree, and the walks of its uncalled functions.
  TreeCache trees_;
  UncalledFunctionMemo uncalled_functions_;
};

}  // namespace

int run_language_server(std::istream& in, std::ostream& out, const ServerOptions& options) {
  LanguageServer server(in, out, options);
  return server.run();
}

}  // namespace parlint::lsp
