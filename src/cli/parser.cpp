#include "cli/parser.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>

namespace cli {

std::string long_option(const std::string& name) {
  std::string option = "--" + name;
  std::replace(option.begin(), option.end(), '_', '-');
  return option;
}

CommandLine::CommandLine(CLI::App& app, const berth::Operation& op)
    : op_(op), sub_(app.add_subcommand(op.name, op.summary)) {
  sub_->set_help_flag("--help,-h", "show this command's options");
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
      if (!p.implicit_value.empty())
        o = sub_->add_flag(long_option(p.name) + "{" + p.implicit_value + "}", slot.text, p.help);
      else
        o = sub_->add_option(names, slot.text, p.help);
      break;
    case berth::ParamKind::integer:
      o = sub_->add_option(names, slot.integer, p.help);
      break;
    case berth::ParamKind::number:
      o = sub_->add_option(names, slot.number, p.help);
      break;
    case berth::ParamKind::strings:
      o = sub_->add_option(names, slot.list, p.help);
      // One value per --env: a vector option would otherwise swallow NAME, or the `--` before
      // CMD. A positional list (run's command) takes the rest of the line.
      if (!p.positional) o->allow_extra_args(false);
      break;
    }
    if (p.required) o->required();
    if (!p.choices.empty()) o->check(CLI::IsMember(p.choices));
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
      params[p.name] = slot.list;
      break;
    }
  }
  return params;
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
