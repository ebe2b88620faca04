// Micro-benchmarks: porcelain parsing and registry records, the in-process work `berth list`
// does per workspace; tree objects, which a snapshot parses and writes on the way from each
// changed path to the root; the watcher answering a query.
#include "core/porcelain.hpp"
#include "core/registry.hpp"
#include "core/tree_edit.hpp"
#include "core/watch.hpp"
#include "util/temp_dir.hpp"

#include <benchmark/benchmark.h>
#include <fstream>
#include <string>

namespace {

std::string status_output(int files) {
  std::string out = "# branch.oid 1932ef8428d0ceb839dd1dff115300d45bd8fe5c";
  out += '\0';
  out += "# branch.head berth/a";
  out += '\0';
  for (int i = 0; i < files; ++i) {
    out += "1 .M N... 100644 100644 100644 1932ef8428d0ceb839dd1dff115300d45bd8fe5c "
           "1932ef8428d0ceb839dd1dff115300d45bd8fe5c src/module" +
           std::to_string(i) + "/file.cpp";
    out += '\0';
    out += "? build/out" + std::to_string(i) + ".o";
    out += '\0';
  }
  return out;
}

void BM_ParseStatus(benchmark::State& state) {
  std::string out = status_output(static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(berth::parse_status_v2(out));
  state.SetItemsProcessed(state.iterations() * state.range(0) * 2);
}
BENCHMARK(BM_ParseStatus)->Arg(10)->Arg(1000)->Arg(100000);

void BM_RecordRoundTrip(benchmark::State& state) {
  berth::Workspace w;
  w.name = "feat/search";
  w.branch = "berth/feat/search";
  w.base = "1932ef8428d0ceb839dd1dff115300d45bd8fe5c";
  w.path = "/home/user/.local/share/berth/shop-80bb8628/feat-search";
  w.git_dir = "/home/user/shop/.git/worktrees/feat-search";
  w.state = berth::State::ready;
  for (auto _ : state) {
    auto text = berth::workspace_to_record(w);
    benchmark::DoNotOptimize(berth::workspace_from_record(text, "bench"));
  }
}
BENCHMARK(BM_RecordRoundTrip);

// A folder of N entries (files and subfolders), as `git cat-file` gives it and hash-object takes.
void BM_TreeRoundTrip(benchmark::State& state) {
  std::vector<berth::TreeEntry> entries;
  for (int64_t i = 0; i < state.range(0); ++i)
    entries.push_back({i % 5 == 0 ? "40000" : "100644", "entry_" + std::to_string(i * 7919 % 1000),
                       "1932ef8428d0ceb839dd1dff115300d45bd8fe5c"});
  for (auto _ : state) {
    auto raw = berth::serialize_tree(entries, 20);
    benchmark::DoNotOptimize(berth::parse_tree(*raw, 20));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_TreeRoundTrip)->Arg(25)->Arg(1000);

// The watcher's answer for a tree where N files changed since the token (events already read).
void BM_WatcherSince(benchmark::State& state) {
  auto dir = util::TempDir::create("berth-bench-watch");
  std::string root = dir->path();
  berth::Watcher watcher;
  std::string first = watcher.since(root, "");
  std::string token = first.substr(0, first.find('\0'));
  for (int64_t i = 0; i < state.range(0); ++i)
    std::ofstream(root + "/f" + std::to_string(i)) << i;
  watcher.drain();
  for (auto _ : state)
    benchmark::DoNotOptimize(watcher.since(root, token));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_WatcherSince)->Arg(10)->Arg(1000);

} // namespace
