// The operation table (include/berth/operations.hpp): the entries of src/core/operations/, each
// wrapped so that its parameters are checked and its project is there before its handler runs.
#include "berth/operations.hpp"

#include "core/operations/params.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace berth {
namespace ops {

const nlohmann::json* Params::find(std::string_view name) const {
  if (!params_.is_object()) return nullptr;
  auto it = params_.find(name);
  if (it == params_.end() || it->is_null()) return nullptr;
  return &*it;
}

bool Params::has(std::string_view name) const {
  return find(name) != nullptr;
}

bool Params::flag(std::string_view name) const {
  const auto* v = find(name);
  return v && v->is_boolean() && v->get<bool>();
}

std::string Params::string(std::string_view name) const {
  return optional_string(name).value_or(std::string());
}

std::optional<std::string> Params::optional_string(std::string_view name) const {
  const auto* v = find(name);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::optional<int64_t> Params::optional_integer(std::string_view name) const {
  const auto* v = find(name);
  if (!v || !v->is_number_integer()) return std::nullopt;
  return v->get<int64_t>();
}

std::optional<double> Params::optional_number(std::string_view name) const {
  const auto* v = find(name);
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::vector<std::string> Params::strings(std::string_view name) const {
  const auto* v = find(name);
  std::vector<std::string> out;
  if (!v || !v->is_array()) return out;
  for (const auto& item : *v)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

Param name_param(std::string help) {
  Param p;
  p.name = "name";
  p.help = std::move(help);
  p.required = true;
  p.positional = true;
  return p;
}

Param flag_param(std::string name, std::string help, std::string short_name) {
  Param p;
  p.name = std::move(name);
  p.kind = ParamKind::flag;
  p.help = std::move(help);
  p.short_name = std::move(short_name);
  return p;
}

Param string_param(std::string name, std::string help, std::string short_name) {
  Param p;
  p.name = std::move(name);
  p.help = std::move(help);
  p.short_name = std::move(short_name);
  return p;
}

Param positional_param(std::string name, std::string help, std::vector<std::string> choices) {
  Param p = string_param(std::move(name), std::move(help));
  p.positional = true;
  p.required = true;
  p.choices = std::move(choices);
  return p;
}

Param agent_param(std::string help) {
  return positional_param("agent", std::move(help), {"claude"});
}

Param sandbox_param(std::string help) {
  Param sandbox = string_param("sandbox", std::move(help));
  sandbox.implicit_value = "landlock";
  // Only as --sandbox=MECHANISM: a bare --sandbox never takes the next word (NAME, or `--`).
  sandbox.value_name = "MECHANISM";
  sandbox.choices = {"landlock", "bwrap", "best-effort", "off"};
  return sandbox;
}

Param net_param() {
  Param net = string_param("net", "network in the sandbox: on or off");
  net.choices = {"on", "off"};
  return net;
}

void add_warnings(std::vector<std::string>& warnings, const std::vector<std::string>& more) {
  for (const auto& w : more)
    if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
}

Param env_param() {
  Param env = string_param("env", "set KEY=VALUE in the command's environment (repeatable)", "e");
  env.kind = ParamKind::strings;
  return env;
}

} // namespace ops

namespace {

const char* kind_name(ParamKind kind) {
  switch (kind) {
  case ParamKind::flag:
    return "flag";
  case ParamKind::string:
    return "string";
  case ParamKind::integer:
    return "integer";
  case ParamKind::number:
    return "number";
  case ParamKind::strings:
    return "strings";
  }
  return "?";
}

// What a value of the kind looks like, for the error that says it got something else.
const char* kind_wanted(ParamKind kind) {
  switch (kind) {
  case ParamKind::flag:
    return "true or false";
  case ParamKind::string:
    return "a string";
  case ParamKind::integer:
    return "an integer";
  case ParamKind::number:
    return "a number";
  case ParamKind::strings:
    return "an array of strings";
  }
  return "?";
}

bool of_kind(const nlohmann::json& v, ParamKind kind) {
  switch (kind) {
  case ParamKind::flag:
    return v.is_boolean();
  case ParamKind::string:
    return v.is_string();
  case ParamKind::integer:
    return v.is_number_integer();
  case ParamKind::number:
    return v.is_number();
  case ParamKind::strings:
    return v.is_array() &&
           std::all_of(v.begin(), v.end(), [](const nlohmann::json& s) { return s.is_string(); });
  }
  return false;
}

// The entry as the table keeps it: the handler behind the checks every entry gets.
Operation wrap(ops::Entry entry) {
  Operation op = std::move(entry.operation);
  std::string name = op.name;
  op.run = [name, handler = std::move(entry.handler),
            alone = std::move(entry.alone)](const Project* project, const nlohmann::json& params,
                                            const OperationContext& context) -> Result<Outcome> {
    const Operation* self = find_operation(name);
    if (auto ok = check_params(*self, params); !ok) return tl::unexpected(ok.error());
    if (alone) return alone(ops::Params(params), context);
    if (!project)
      return fail(ErrorCode::usage, fmt::format("{} works on a project, and none was given", name),
                  "open the git repository (berth::Project::open) and pass it");
    return handler(*project, ops::Params(params), context);
  };
  return op;
}

std::vector<Operation> build_table() {
  std::vector<Operation> table;
  for (auto entry :
       {ops::new_entry(),     ops::list_entry(),   ops::path_entry(),  ops::status_entry(),
        ops::run_entry(),     ops::shell_entry(),  ops::diff_entry(),  ops::compare_entry(),
        ops::commit_entry(),  ops::accept_entry(), ops::sync_entry(),  ops::discard_entry(),
        ops::restore_entry(), ops::pool_entry(),   ops::watch_entry(), ops::doctor_entry(),
        ops::config_entry(),  ops::trust_entry(),  ops::hook_entry(),  ops::integrate_entry(),
        ops::setup_entry(),   ops::forget_entry(), ops::fork_entry(),  ops::pick_entry(),
        ops::gc_entry(),      ops::trash_entry()})
    table.push_back(wrap(std::move(entry)));
  return table;
}

} // namespace

const std::vector<Operation>& operations() {
  static const std::vector<Operation> table = build_table();
  return table;
}

const Operation* find_operation(std::string_view name) {
  for (const auto& op : operations())
    if (op.name == name) return &op;
  return nullptr;
}

Result<void> check_params(const Operation& op, const nlohmann::json& params) {
  std::string usage = fmt::format("see `berth help {}` for its parameters", op.name);
  if (!params.is_object() && !params.is_null())
    return fail(ErrorCode::usage,
                fmt::format("{}: the parameters must be a JSON object, not {}", op.name,
                            params.type_name()),
                usage);
  if (params.is_object())
    for (const auto& item : params.items()) {
      const std::string& key = item.key();
      const nlohmann::json& value = item.value();
      auto it = std::find_if(op.params.begin(), op.params.end(),
                             [&](const Param& p) { return p.name == key; });
      if (it == op.params.end())
        return fail(ErrorCode::usage, fmt::format("{} has no parameter '{}'", op.name, key), usage);
      if (value.is_null()) continue;
      if (!of_kind(value, it->kind))
        return fail(ErrorCode::usage,
                    fmt::format("{}: parameter '{}' must be {}, not {}", op.name, key,
                                kind_wanted(it->kind), value.type_name()),
                    usage);
      if (!it->choices.empty() && std::find(it->choices.begin(), it->choices.end(),
                                            value.get<std::string>()) == it->choices.end())
        return fail(ErrorCode::usage,
                    fmt::format("{}: parameter '{}' is '{}', which is not one of {}", op.name, key,
                                value.get<std::string>(), fmt::join(it->choices, ", ")),
                    usage);
    }
  for (const auto& p : op.params)
    if (p.required && (!params.is_object() || !params.contains(p.name) || params[p.name].is_null()))
      return fail(ErrorCode::usage, fmt::format("{} needs the parameter '{}'", op.name, p.name),
                  usage);
  return {};
}

std::string schema_for(const Operation& op, const nlohmann::json& params) {
  for (const auto& v : op.schema_variants)
    if (params.is_object() && params.contains(v.flag) && params[v.flag].is_boolean() &&
        params[v.flag].get<bool>())
      return v.schema;
  return op.schema;
}

nlohmann::json operations_document() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& op : operations()) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : op.params)
      params.push_back({{"name", p.name},
                        {"kind", kind_name(p.kind)},
                        {"help", p.help},
                        {"required", p.required},
                        {"positional", p.positional},
                        {"short_name", p.short_name},
                        {"choices", p.choices},
                        {"internal", p.internal},
                        {"implicit_value", p.implicit_value},
                        {"value_name", p.value_name},
                        {"from_stdin", p.from_stdin},
                        {"from_env", p.from_env}});
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : op.schema_variants)
      variants.push_back({{"flag", v.flag}, {"schema", v.schema}});
    list.push_back({{"name", op.name},
                    {"summary", op.summary},
                    {"needs_project", op.needs_project},
                    {"read_only", op.read_only},
                    {"destructive", op.destructive},
                    {"idempotent", op.idempotent},
                    {"schema", op.schema},
                    {"schema_variants", variants},
                    {"params", params}});
  }
  return list;
}

} // namespace berth
