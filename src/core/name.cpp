#include "core/name.hpp"

#include <array>
#include <fmt/format.h>

namespace berth {
namespace {

bool allowed_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-' || c == '/';
}

std::string printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    // Control bytes would garble a terminal, and bytes >= 0x80 may not be valid UTF-8, which the
    // JSON error document cannot carry: both are shown escaped.
    if (c < 0x20 || c >= 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

Result<void> refuse(std::string_view name, std::string_view why) {
  return fail(ErrorCode::invalid_name,
              fmt::format("invalid workspace name '{}': {}", printable(name), why),
              "use letters, digits, '.', '_', '-' and '/', e.g. fix-login or feat/search");
}

} // namespace

Result<void> validate_name(std::string_view name) {
  if (name.empty()) return refuse(name, "it is empty");
  if (name.size() > kMaxNameLength)
    return refuse(name.substr(0, 40), fmt::format("longer than {} characters", kMaxNameLength));
  for (char c : name) {
    if (!allowed_char(c)) {
      unsigned char u = static_cast<unsigned char>(c);
      if (u < 0x20 || u == 0x7f) return refuse(name, "it contains a control character");
      if (c == ' ') return refuse(name, "it contains a space");
      return refuse(name, fmt::format("the character '{}' is not allowed",
                                      printable(std::string_view(&c, 1))));
    }
  }
  if (name.find("..") != std::string_view::npos) return refuse(name, "it contains '..'");
  if (name.front() == '/' || name.back() == '/') return refuse(name, "it starts or ends with '/'");
  if (name.find("//") != std::string_view::npos) return refuse(name, "it contains '//'");
  size_t start = 0;
  bool first = true;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.front() == '-')
      return refuse(name, "a part starts with '-' (it would read as an option)");
    if (part.front() == '.') return refuse(name, "a part starts with '.'");
    if (part.back() == '.') return refuse(name, "a part ends with '.'");
    if (part.size() >= 5 && part.substr(part.size() - 5) == ".lock")
      return refuse(name, "a part ends with '.lock'");
    if (first) {
      static constexpr std::array<std::string_view, 5> reserved{"refs", "heads", "tags", "remotes",
                                                                "HEAD"};
      for (auto r : reserved)
        if (part == r) return refuse(name, fmt::format("'{}' could be mistaken for a git ref", r));
      first = false;
    }
    start = end + 1;
  }
  return {};
}

Result<void> validate_branch_prefix(std::string_view prefix) {
  if (prefix.empty()) return {};
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::config_invalid,
                fmt::format("invalid branch_prefix '{}': {}", printable(prefix), why),
                "use ref components ending in '/', e.g. \"berth/\" or \"agents/\"");
  };
  if (prefix.back() != '/') return bad("it must end with '/'");
  std::string_view body = prefix.substr(0, prefix.size() - 1);
  if (body.empty()) return bad("it is only '/'");
  for (char c : body)
    if (!allowed_char(c)) return bad("it contains a character outside [A-Za-z0-9._/-]");
  if (body.find("..") != std::string_view::npos) return bad("it contains '..'");
  // Every component must be one git accepts inside a ref, or every branch made with it is refused.
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('/', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view part = body.substr(start, end - start);
    if (part.empty()) return bad("it has an empty component ('//' or a leading '/')");
    if (part.front() == '-' || part.front() == '.')
      return bad("a component starts with '-' or '.'");
    if (part.size() >= 5 && part.substr(part.size() - 5) == ".lock")
      return bad("a component ends with '.lock'");
    start = end + 1;
  }
  return {};
}

Result<void> validate_owner(std::string_view owner) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::usage, fmt::format("invalid --owner label: {}", why),
                "use a short printable label, e.g. --owner agent-1");
  };
  if (owner.size() > kMaxNameLength) return bad("longer than 100 characters");
  for (size_t i = 0; i < owner.size(); ++i) {
    auto c = static_cast<unsigned char>(owner[i]);
    if (c < 0x20 || c == 0x7f) return bad("it contains a control character");
    if (c < 0x80) continue;
    // A well-formed UTF-8 sequence: a lead byte and its continuation bytes.
    int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    if (extra < 0 || c == 0xC0 || c == 0xC1 || i + extra >= owner.size())
      return bad("it is not valid UTF-8");
    for (int k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(owner[i + k]) & 0xC0) != 0x80)
        return bad("it is not valid UTF-8");
    i += extra;
  }
  return {};
}

std::string name_slug(std::string_view name) {
  std::string slug(name);
  for (char& c : slug)
    if (c == '/') c = '-';
  return slug;
}

} // namespace berth
