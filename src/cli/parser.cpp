#include "cli/parser.hpp"

#include <algorithm>

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

} // namespace cli
