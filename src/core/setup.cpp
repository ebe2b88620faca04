// Placeholder until workspace set-up lands: nothing to do.
#include "core/setup.hpp"

namespace berth {

Result<SetupReport> set_up_workspace(const Project&, const Workspace&, const SetupListener&) {
  return SetupReport{};
}

Result<TrustStatus> trust_status(const Project&) {
  return TrustStatus{};
}
Result<TrustStatus> trust_project(const Project&) {
  return TrustStatus{};
}
Result<TrustStatus> revoke_trust(const Project&) {
  return TrustStatus{};
}
Result<std::vector<std::pair<std::string, std::string>>> list_trust() {
  return std::vector<std::pair<std::string, std::string>>{};
}

} // namespace berth
