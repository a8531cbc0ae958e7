#include "mesh/config/limits.h"

#include <unistr.h>  // libunistring: u8_check

#include <cstdint>
#include <cstdio>

#include "mesh/config/config.h"

namespace meshmp::mesh {
namespace {

// One pass over the text (TOML v1.0.0 lexical rules: '#' comments, "basic",
// 'literal' and their triple-quoted multi-line forms). The depth of a point
// is the segments of the current table header, plus those of the
// statement's key, plus the open arrays and inline tables around it, plus the
// segments of an inline table's key.
class Scan {
 public:
  /// `bad`: offset of the first byte that is not UTF-8, or npos.
  Scan(const std::string& text, const std::string& name, std::size_t bad)
      : t_(text), name_(name), bad_(bad) {}

  void run() {
    while (i_ < t_.size()) {
      utf8_check(in_key_ || header_ ? "(key)" : nullptr);
      const char c = t_[i_];
      if (c == '\n') {
        ++line_;
        ++i_;
        if (stack_.empty() && !header_) start_ = true;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r') {
        ++i_;
        continue;
      }
      if (c == '#') {
        while (i_ < t_.size() && t_[i_] != '\n') {
          utf8_check("(comment)");
          ++i_;
        }
        continue;
      }
      if (start_) {
        start_ = false;
        key_.clear();
        stmt_segments_ = 1;
        inline_segments_ = 0;
        in_key_ = true;
        if (c == '[') {  // a table header: [a.b] or [[a.b]]
          header_ = true;
          header_segments_ = 1;
          i_ += i_ + 1 < t_.size() && t_[i_ + 1] == '[' ? 2 : 1;
          continue;
        }
      }
      if (c == '"' || c == '\'') {
        empty_value_ = false;
        if (!skip_string()) return;  // unterminated: toml11 names it
        continue;
      }
      ++i_;
      if (in_key_) key_char(c);
      else value_char(c);
    }
  }

 private:
  void key_char(char c) {
    if (header_) {
      if (c == ']') {
        header_ = in_key_ = false;
        if (i_ < t_.size() && t_[i_] == ']') ++i_;
        return;
      }
      if (c == '.') ++header_segments_;
      note(c);
      check(header_segments_);
      return;
    }
    if (c == '=') {
      in_key_ = false;
      return;
    }
    if (c == '}' && !stack_.empty()) {  // an empty inline table
      stack_.pop_back();
      in_key_ = false;
      return;
    }
    if (c == '.') {
      if (stack_.empty()) ++stmt_segments_;
      else ++inline_segments_;
    }
    if (stack_.empty()) note(c);
    check(header_segments_ + stmt_segments_ + static_cast<int>(stack_.size()) + inline_segments_);
  }

  void value_char(char c) {
    if (c == ']' && empty_value_)
      throw ConfigError(name_ + ":" + std::to_string(value_line_) + ": " + key_ +
                        ": is an empty array; no key of a mesh config takes one");
    empty_value_ = c == '[' && stack_.empty();
    if (empty_value_) value_line_ = line_;
    if (c == '[' || c == '{') {
      stack_.push_back(c);
      check(header_segments_ + stmt_segments_ + static_cast<int>(stack_.size()));
      if (c == '{') open_inline_key();
    } else if ((c == ']' || c == '}') && !stack_.empty()) {
      stack_.pop_back();
    } else if (c == ',' && !stack_.empty() && stack_.back() == '{') {
      open_inline_key();
    }
  }

  void open_inline_key() {
    in_key_ = true;
    inline_segments_ = 1;
  }

  // Skips a string starting at i_; false if it does not end.
  bool skip_string() {
    const char q = t_[i_];
    const bool triple = t_.compare(i_, 3, std::string(3, q)) == 0;
    const std::size_t open = triple ? 3 : 1;
    const bool named = in_key_ && (stack_.empty() || header_);  // part of the key the error names
    if (named) note(q);
    i_ += open;
    while (i_ < t_.size()) {
      utf8_check(named ? "(key)" : nullptr);
      const char c = t_[i_];
      if (named) note(c);
      if (c == '\\' && q == '"') {
        i_ += 2;
        continue;
      }
      if (c == '\n') {
        if (!triple) return true;  // toml11 reports the unterminated string
        ++line_;
      }
      if (c == q && (!triple || t_.compare(i_, 3, std::string(3, q)) == 0)) {
        i_ += open;
        return true;
      }
      ++i_;
    }
    return false;
  }

  // Throws if the scan has reached or passed the first byte that is not
  // UTF-8; `where` names it, or (null) the statement's key does.
  void utf8_check(const char* where) const {
    if (i_ < bad_) return;
    std::size_t column = bad_ + 1;
    const std::size_t nl = t_.rfind('\n', bad_);
    if (nl != std::string::npos) column = bad_ - nl;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(t_[bad_]));
    throw ConfigError(name_ + ":" + std::to_string(line_) + ": " + (where ? std::string(where) : key_) + ": byte " +
                      byte + " at column " + std::to_string(column) + " is not UTF-8 (TOML files are UTF-8)");
  }

  void note(char c) {
    if (key_.size() < 40) key_ += c;
  }

  void check(int depth) const {
    if (depth <= kMaxConfigDepth) return;
    throw ConfigError(name_ + ":" + std::to_string(line_) + ": " + (key_.empty() ? std::string("(value)") : key_) +
                      ": nested more than " + std::to_string(kMaxConfigDepth) +
                      " deep (arrays, inline tables and dotted-key segments count together)");
  }

  const std::string& t_;
  const std::string& name_;
  const std::size_t bad_;
  std::size_t i_ = 0;
  int line_ = 1;
  bool start_ = true, in_key_ = false, header_ = false;
  // The statement's value opened an array and nothing has followed yet:
  // `key = []`. Refused, because toml11 3.7.1 reads the last element of an
  // empty array where a later dotted key or table header extends the key
  // (`di = []` then `di.s = 2`: found by //fuzz:config).
  bool empty_value_ = false;
  int value_line_ = 1;  // where that array opened
  int header_segments_ = 0, stmt_segments_ = 0, inline_segments_ = 0;
  std::string stack_;  // open '[' and '{', at most kMaxConfigDepth
  std::string key_;
};

}  // namespace

void check_config_limits(const std::string& text, const std::string& name) {
  if (text.size() > kMaxConfigBytes)
    throw ConfigError(name + ":1: (file): is " + std::to_string(text.size()) + " bytes; a mesh config is at most " +
                      std::to_string(kMaxConfigBytes) + " bytes");
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::uint8_t* bad = u8_check(bytes, text.size());
  Scan(text, name, bad ? static_cast<std::size_t>(bad - bytes) : std::string::npos).run();
}

}  // namespace meshmp::mesh
