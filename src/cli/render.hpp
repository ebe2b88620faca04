// Text rendering for people: tables, ages, colour (only on a terminal, never with NO_COLOR).
#pragma once

#include "util/human.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace cli {

/// Whether stdout gets colour: a TTY, NO_COLOR unset, TERM not "dumb".
bool use_color();
/// Wrap `text` in an SGR colour code when colour is on ("32" green, "33" yellow, "31" red, "2"
/// dim).
std::string paint(const std::string& text, const char* sgr);

/// "3s", "5m", "2h", "4d" since `unix_seconds` ("-" for 0).
std::string age(int64_t unix_seconds, int64_t now);
/// "1.2 MB" style.
using util::human_bytes;

/// Unix seconds of an ISO 8601 UTC time as berth::iso_time writes it; 0 for "" (or garbage).
int64_t unix_time(const std::string& iso);
/// The first 10 hex digits of a commit id.
std::string short_sha(const std::string& sha);

/// Left-aligned columns separated by two spaces; the first row is the header.
std::string table(const std::vector<std::vector<std::string>>& rows);

/// "submodule PATH: new commits, uncommitted changes" for one of diff's or compare's `nested`
/// entries (work inside a submodule or a nested repository, not in the file counts).
std::string nested_work_line(const nlohmann::json& n);

/// The columns `text` takes on a terminal: SGR escapes take none, East Asian wide and emoji
/// characters two, combining marks none, every other character one.
size_t display_width(const std::string& text);
/// `text` shortened to at most `width` columns with an ellipsis (…): at its end, or in its
/// middle (`middle`, for a path: both ends say something). Unchanged when it fits.
std::string shorten(const std::string& text, size_t width, bool middle = false);
/// `text` safe in one table cell: control characters (a newline in a path) and bytes that are
/// not UTF-8 become '?'.
std::string printable(const std::string& text);
/// The terminal's width when stdout is a terminal: COLUMNS when set to a number, else the
/// terminal's own (TIOCGWINSZ), else 80. 0 when stdout is not a terminal.
size_t terminal_columns();
/// The width of the terminal `fd` is: COLUMNS when set to a number, else the terminal's own,
/// else 80.
size_t terminal_width_of(int fd);

/// Print "berth: warning: TEXT" on stderr, unless this process printed that warning already: the
/// same problem can reach the front end twice (a set-up warning shown live, then again in the
/// command's result; a config warning also found by the command).
void print_warning(const std::string& text);
/// A warning about another workspace than the command's (a fork's attempt): under --json an event
/// carrying that workspace, once for it (and not again without it); otherwise print_warning.
void print_warning(const std::string& text, const std::string& workspace);
/// Count a warning as printed (shown in another form, e.g. a JSON set-up event).
void mark_warning_printed(const std::string& text);

/// --json: berth's stderr becomes an event stream (docs/json.md, docs/schema/event.json): every
/// line berth writes there is one JSON object naming its `type`, the `workspace` the command is
/// about (null when none) and the `time`. Warnings and notes become events too.
void use_event_stream(nlohmann::json workspace);
bool event_stream();
/// Write one event line on stderr: `fields` plus type, workspace and time.
void emit_event(std::string_view type, nlohmann::json fields = nlohmann::json::object());

} // namespace cli
