// Bounds a mesh config must satisfy before toml11 sees it. toml11 parses
// arrays and inline tables by recursion and builds one table per dotted-key
// segment, with no limit of its own: 10 000 nested arrays overflow the stack
// and 100 000 dotted segments take minutes. These checks make such input a
// ConfigError naming file, line and key, in time linear in its size.
#pragma once

#include <cstddef>
#include <string>

namespace meshmp::mesh {

/// Largest config file accepted, in bytes (a 4096-node [[node]] list is
/// about 200 KiB).
inline constexpr std::size_t kMaxConfigBytes = 1 << 20;
/// Deepest nesting accepted: arrays, inline tables, and the segments of a
/// dotted key or table header, counted together. meshmp's own keys need 3.
inline constexpr int kMaxConfigDepth = 32;

/// Throws ConfigError "NAME:LINE: KEY: ..." if `text` is longer than
/// kMaxConfigBytes, nests deeper than kMaxConfigDepth anywhere, holds a
/// byte that is not UTF-8 (TOML v1.0.0: a TOML file is UTF-8; toml11 3.7.1
/// reads past its buffer on such a byte in a literal string), or gives a key
/// an empty array (`key = []`: no meshmp key takes one, and toml11 3.7.1
/// reads the last element of an empty array that a later dotted key or
/// table header extends). KEY is the
/// statement's key (or table header) as written, cut to 40 characters. A
/// lexical scan only -- strings and comments are skipped, nothing is
/// interpreted -- so input it passes may still be a syntax error for toml11.
void check_config_limits(const std::string& text, const std::string& name);

}  // namespace meshmp::mesh
