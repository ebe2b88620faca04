#include "cli/parser.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>

namespace cli {
namespace {

// CLI11 shows an option with an implicit value as `--sandbox{landlock}`; people read
// `--sandbox[=MECHANISM]`, as in the man page. Its choices are named in its help line.
class Formatter : public CLI::Formatter {
public:
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    if (auto brace = name.find('{'); !is_positional && brace != std::string::npos)
      return name.substr(0, brace) + opt->get_option_text();
    return name;
  }
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (opt->get_name(false, true).find('{') != std::string::npos) return "";
    return CLI::Formatter::make_option_opts(opt);
  }
};

bool takes_separate_value(const berth::Param& p) {
  return !p.positional && p.kind != berth::ParamKind::flag && p.implicit_value.empty();
}

const berth::Param* option_named(const berth::Operation& op, const std::string& word) {
  for (const auto& p : op.params)
    if (!p.positional &&
        (word == long_option(p.name) || (!p.short_name.empty() && word == "-" + p.short_name)))
      return &p;
  return nullptr;
}

// A word as a shell reads it back: quoted when it holds anything but the plain characters.
std::string shell_word(const std::string& word) {
  bool plain = !word.empty() &&
               word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
                                      "OPQRSTUVWXYZ0123456789-_./=:,+@%") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word)
    quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

} // namespace

std::string long_option(const std::string& name) {
  std::string option = "--" + name;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

CommandLine::CommandLine(CLI::App& app, const berth::Operation& op)
    : op_(op), sub_(app.add_subcommand(op.name, op.summary)) {
  sub_->set_help_flag("--help,-h", "show this command's options");
  sub_->formatter(std::make_shared<Formatter>());
  for (const auto& p : op.params) {
    if (p.from_stdin || !p.from_env.empty()) continue; // filled by fill_from_outside
    Slot& slot = slots_.emplace_back();
    slot.param = &p;
    std::string names = p.positional ? p.name : long_option(p.name);
    if (!p.positional && !p.short_name.empty()) names += ",-" + p.short_name;
    CLI::Option* o = nullptr;
    switch (p.kind) {
    case berth::ParamKind::flag:
      o = sub_->add_flag(names, slot.flag, p.help);
      break;
    case berth::ParamKind::string:
      // An option that may be given bare (--sandbox) takes its value only as --name=VALUE, so
      // that it never swallows NAME or the `--` before a command.
      if (!p.implicit_value.empty()) {
        o = sub_->add_flag(long_option(p.name) + "{" + p.implicit_value + "}", slot.text, p.help);
        o->option_text("[=" + (p.value_name.empty() ? std::string("VALUE") : p.value_name) + "]");
      } else
        o = sub_->add_option(names, slot.text, p.help);
      break;
    case berth::ParamKind::integer:
      o = sub_->add_option(names, slot.integer, p.help);
      break;
    case berth::ParamKind::number:
      o = sub_->add_option(names, slot.number, p.help);
      break;
    case berth::ParamKind::strings:
      // `--test -- CMD...`: a flag here; main.cpp hands it the words after `--`.
      if (p.after_dash_dash) {
        o = sub_->add_flag(long_option(p.name), slot.flag, p.help);
        o->option_text("-- CMD...");
        break;
      }
      o = sub_->add_option(names, slot.list, p.help);
      // One value per --env: a vector option would otherwise swallow NAME, or the `--` before
      // CMD. A positional list (run's command) takes the rest of the line.
      if (!p.positional) o->allow_extra_args(false);
      break;
    }
    if (p.required) o->required();
    if (!p.choices.empty()) o->check(CLI::IsMember(p.choices));
    if (!p.value_name.empty() && p.implicit_value.empty()) o->type_name(p.value_name);
    if (p.internal) o->group("");
    slot.option = o;
  }
}

nlohmann::json CommandLine::params() const {
  nlohmann::json params = nlohmann::json::object();
  for (const auto& slot : slots_) {
    if (slot.option->count() == 0) continue;
    const auto& p = *slot.param;
    switch (p.kind) {
    case berth::ParamKind::flag:
      params[p.name] = slot.flag;
      break;
    case berth::ParamKind::string:
      params[p.name] = slot.text && !slot.text->empty() ? *slot.text
                       : !p.implicit_value.empty()      ? p.implicit_value
                                                        : slot.text.value_or("");
      break;
    case berth::ParamKind::integer:
      params[p.name] = slot.integer;
      break;
    case berth::ParamKind::number:
      params[p.name] = slot.number;
      break;
    case berth::ParamKind::strings:
      params[p.name] = p.after_dash_dash ? nlohmann::json(slot.flag) : nlohmann::json(slot.list);
      break;
    }
  }
  return params;
}

std::optional<berth::Error> misread_value(const berth::Operation& op,
                                          const std::vector<std::string>& words) {
  for (size_t i = 0; i + 1 < words.size() && words[i] != "--"; ++i) {
    const berth::Param* p = option_named(op, words[i]);
    if (!p || p->implicit_value.empty()) continue;
    const std::string& next = words[i + 1];
    if (std::find(p->choices.begin(), p->choices.end(), next) == p->choices.end()) continue;
    std::string option = long_option(p->name);
    return berth::Error{
        berth::ErrorCode::usage,
        fmt::format("`{} {}`: {} takes its value only joined by '=', so {} would be read as the "
                    "next argument",
                    option, next, option, next),
        fmt::format("write `{}={}` (a bare {} means {})", option, next, option, p->implicit_value),
        std::nullopt,
        {}};
  }
  return std::nullopt;
}

berth::Error option_value_error(const berth::Operation& op, const std::string& what) {
  // CLI11 names the option by its long spelling ("--attempts is required", "Could not convert:
  // --attempts = abc", "--color: x not in {...}"), a positional by its name ("name is required").
  const berth::Param* param = nullptr;
  std::string spelled;
  size_t at = std::string::npos;
  for (const auto& p : op.params) {
    std::string s = p.positional ? p.name : long_option(p.name);
    auto found = what.find(s);
    // A whole word (--base is in --base-ref), the longest one found.
    bool whole = found != std::string::npos &&
                 (found + s.size() == what.size() || std::strchr(" =:", what[found + s.size()]));
    if (whole && s.size() > spelled.size()) {
      param = &p;
      spelled = s;
      at = found;
    }
  }
  std::string message = what;
  if (param) {
    std::string label = spelled;
    if (param->positional)
      std::transform(label.begin(), label.end(), label.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    else if (!param->short_name.empty())
      label = "-" + param->short_name + "/" + label;
    const char* takes = param->kind == berth::ParamKind::integer  ? "a whole number"
                        : param->kind == berth::ParamKind::number ? "a number"
                                                                  : nullptr;
    std::string rest = what.substr(at + spelled.size());
    if (what.rfind("Could not convert", 0) == 0 && takes && rest.rfind(" = ", 0) == 0)
      message = fmt::format("{} takes {}, not '{}'", label, takes, rest.substr(3));
    else if (rest == " is required")
      message = label + " is required";
    else if (rest.rfind(": ", 0) == 0)
      message = label + rest;
  }
  return berth::Error{berth::ErrorCode::usage,
                      message,
                      fmt::format("`berth {} --help` shows what each option takes", op.name),
                      std::nullopt,
                      {}};
}

// Where the command of `op` (run's CMD) begins when it is given without `--`: the first word
// that is no positional name, no option of berth's (the operation's or a global one) and no
// such option's value; an option berth does not know, once the names are given (`run x -la`).
// npos when there is no command, a `--`, or the operation takes no command.
size_t command_start(const berth::Operation& op, const std::vector<std::string>& words) {
  size_t named = 0, wanted = 0;
  bool has_command = false;
  for (const auto& p : op.params) {
    // compare's positional list is names, not a command: its command follows `--test --`.
    if (p.after_dash_dash) return std::string::npos;
    if (p.positional && !p.from_stdin && p.from_env.empty()) {
      if (p.kind == berth::ParamKind::strings)
        has_command = true;
      else
        ++wanted;
    }
  }
  if (!has_command) return std::string::npos;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") return std::string::npos;
    if (w.size() > 1 && w[0] == '-') {
      std::string bare = w.substr(0, w.find('='));
      const berth::Param* p = option_named(op, bare);
      // -C and -c (berth's global options) take the next word; so does a valued option.
      bool valued = w == "-C" || w == "-c" || (p && bare == w && takes_separate_value(*p));
      bool global = w == "--json" || w == "--quiet" || w == "-q" || w == "--help" || w == "-h";
      if (p || valued || global) {
        if (valued) ++i;
        continue;
      }
      if (named == wanted) return i;
      continue;
    }
    if (named < wanted) {
      ++named;
      continue;
    }
    return i;
  }
  return std::string::npos;
}

std::string dash_dash_suggestion(const berth::Operation& op,
                                 const std::vector<std::string>& words) {
  size_t start = command_start(op, words);
  if (start == std::string::npos) return "";
  std::string line = "berth " + op.name;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i == start) line += " --";
    line += " " + shell_word(words[i]);
  }
  return line;
}

std::optional<berth::Error> options_after_command(const berth::Operation& op,
                                                  const std::vector<std::string>& words) {
  size_t start = command_start(op, words);
  if (start == std::string::npos) return std::nullopt;
  for (size_t i = start + 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.size() < 2 || w[0] != '-') continue;
    return berth::Error{
        berth::ErrorCode::usage,
        fmt::format("`{}` follows the command `{}` without `--` before it: berth would take "
                    "the command's options for its own",
                    w, words[start]),
        fmt::format("put the command after `--`, so that its options are not taken for "
                    "berth's: `{}`",
                    dash_dash_suggestion(op, words)),
        std::nullopt,
        {}};
  }
  return std::nullopt;
}

nlohmann::json help_entry(const berth::Operation& op) {
  nlohmann::json params = nlohmann::json::array();
  for (const auto& p : op.params) {
    if (p.internal || p.from_stdin || !p.from_env.empty()) continue;
    params.push_back(
        {{"name", p.name},
         {"option", p.positional ? nlohmann::json(nullptr) : nlohmann::json(long_option(p.name))},
         {"short",
          p.short_name.empty() ? nlohmann::json(nullptr) : nlohmann::json("-" + p.short_name)},
         {"kind", p.kind == berth::ParamKind::flag      ? "flag"
                  : p.kind == berth::ParamKind::string  ? "string"
                  : p.kind == berth::ParamKind::integer ? "integer"
                  : p.kind == berth::ParamKind::number  ? "number"
                                                        : "strings"},
         {"help", p.help},
         {"required", p.required},
         {"positional", p.positional},
         {"choices", p.choices},
         {"implicit_value",
          p.implicit_value.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.implicit_value)}});
  }
  return {{"name", op.name}, {"summary", op.summary}, {"params", params}};
}

berth::Result<void> fill_from_outside(const berth::Operation& op, nlohmann::json& params) {
  for (const auto& p : op.params) {
    if (!p.from_env.empty()) {
      if (const char* value = std::getenv(p.from_env.c_str())) params[p.name] = value;
    } else if (p.from_stdin) {
      // A hook's input is a small JSON object; past 1 MiB it is not what the caller sends.
      constexpr size_t kMax = 1 << 20;
      std::string input;
      char buf[65536];
      for (;;) {
        ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
          return berth::fail(
              berth::ErrorCode::io_error,
              fmt::format("cannot read {}'s input on stdin: {}", op.name, std::strerror(errno)));
        if (n == 0) break;
        input.append(buf, static_cast<size_t>(n));
        if (input.size() > kMax)
          return berth::fail(berth::ErrorCode::usage,
                             fmt::format("{}: more than 1 MiB on stdin, expected one small JSON "
                                         "object",
                                         op.name),
                             "nothing was changed");
      }
      params[p.name] = input;
    }
  }
  return {};
}

} // namespace cli
