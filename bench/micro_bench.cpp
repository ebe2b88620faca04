// Micro-benchmarks: porcelain parsing and registry records, the in-process work `berth list`
// does per workspace.
#include "core/porcelain.hpp"
#include "core/registry.hpp"

#include <benchmark/benchmark.h>
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

} // namespace
