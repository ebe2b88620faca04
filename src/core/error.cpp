#include "berth/error.hpp"

namespace berth {

std::string_view code_name(ErrorCode code) {
  switch (code) {
  case ErrorCode::usage:
    return "usage";
  case ErrorCode::not_a_repository:
    return "not_a_repository";
  case ErrorCode::empty_repository:
    return "empty_repository";
  case ErrorCode::bare_repository:
    return "bare_repository";
  case ErrorCode::invalid_name:
    return "invalid_name";
  case ErrorCode::invalid_revision:
    return "invalid_revision";
  case ErrorCode::name_taken:
    return "name_taken";
  case ErrorCode::branch_exists:
    return "branch_exists";
  case ErrorCode::not_found:
    return "not_found";
  case ErrorCode::busy:
    return "busy";
  case ErrorCode::locked:
    return "locked";
  case ErrorCode::unsaved_work:
    return "unsaved_work";
  case ErrorCode::unsafe_path:
    return "unsafe_path";
  case ErrorCode::config_invalid:
    return "config_invalid";
  case ErrorCode::git_failed:
    return "git_failed";
  case ErrorCode::io_error:
    return "io_error";
  case ErrorCode::interrupted:
    return "interrupted";
  case ErrorCode::conflict:
    return "conflict";
  case ErrorCode::dirty_target:
    return "dirty_target";
  case ErrorCode::not_fast_forward:
    return "not_fast_forward";
  case ErrorCode::sandbox_unavailable:
    return "sandbox_unavailable";
  case ErrorCode::escape_refused:
    return "escape_refused";
  case ErrorCode::target_in_progress:
    return "target_in_progress";
  case ErrorCode::no_space:
    return "no_space";
  case ErrorCode::record_mismatch:
    return "record_mismatch";
  case ErrorCode::unreachable_gitlink:
    return "unreachable_gitlink";
  case ErrorCode::nested_repository:
    return "nested_repository";
  case ErrorCode::branch_missing:
    return "branch_missing";
  case ErrorCode::snapshot_damaged:
    return "snapshot_damaged";
  case ErrorCode::trash_blocked:
    return "trash_blocked";
  case ErrorCode::git_timeout:
    return "git_timeout";
  case ErrorCode::hostile_file:
    return "hostile_file";
  case ErrorCode::internal:
    return "internal";
  case ErrorCode::index_lock:
    return "index_lock";
  case ErrorCode::hook_refused:
    return "hook_refused";
  case ErrorCode::invalid_hook_input:
    return "invalid_hook_input";
  case ErrorCode::settings_invalid:
    return "settings_invalid";
  case ErrorCode::read_only_file:
    return "read_only_file";
  case ErrorCode::sandbox_path_refused:
    return "sandbox_path_refused";
  // issue 17, plain folders
  case ErrorCode::plain_folder_changed:
    return "plain_folder_changed";
  case ErrorCode::plain_in_use:
    return "plain_in_use";
  case ErrorCode::bad_duration:
    return "bad_duration";
  case ErrorCode::bad_snapshot:
    return "bad_snapshot";
  case ErrorCode::stopped:
    return "stopped";
  }
  return "unknown";
}

int exit_status(ErrorCode code) {
  switch (code) {
  case ErrorCode::usage:
  case ErrorCode::invalid_name:
  case ErrorCode::config_invalid:
  case ErrorCode::invalid_hook_input:
  case ErrorCode::settings_invalid:
  case ErrorCode::bad_duration:
  case ErrorCode::bad_snapshot:
    return 2;
  case ErrorCode::conflict:
  case ErrorCode::not_fast_forward:
    return 3;
  case ErrorCode::not_found:
  case ErrorCode::invalid_revision:
    return 4;
  case ErrorCode::busy:
  case ErrorCode::locked:
  case ErrorCode::unsaved_work:
  case ErrorCode::unsafe_path:
  case ErrorCode::dirty_target:
  case ErrorCode::escape_refused:
  case ErrorCode::target_in_progress:
  case ErrorCode::record_mismatch:
  case ErrorCode::unreachable_gitlink:
  case ErrorCode::nested_repository:
  case ErrorCode::hostile_file:
  case ErrorCode::read_only_file:
  case ErrorCode::sandbox_path_refused:
  // issue 17, plain folders
  case ErrorCode::plain_folder_changed:
  case ErrorCode::plain_in_use:
    return 5;
  case ErrorCode::stopped:
    return 130; // as a shell reports a command Ctrl-C ended (128 + SIGINT)
  default:
    return 1;
  }
}

} // namespace berth
