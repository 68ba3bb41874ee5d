// Runs a libFuzzer target's LLVMFuzzerTestOneInput on given inputs, without
// libFuzzer, so that any input (a finding, the checked-in corpus) reproduces
// with any compiler: lockstep_fuzz_replay FILE_OR_DIRECTORY...
// A directory stands for every regular file in it, in name order. A
// mismatch aborts (non-zero exit); otherwise it prints how many inputs ran.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "lockstep_fuzz_replay: cannot read %s\n", file.c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
  std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
  std::fprintf(stderr, "replaying %s (%zu bytes)\n", file.c_str(), data.size());
  // (An empty vector's data() may be null; libFuzzer passes a valid pointer.)
  const std::uint8_t dummy = 0;
  LLVMFuzzerTestOneInput(data.empty() ? &dummy : data.data(), data.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      if (files.empty()) {
        std::fprintf(stderr, "lockstep_fuzz_replay: no inputs in %s\n", arg.c_str());
        return 1;
      }
    } else {
      files.push_back(arg);
    }
    for (const auto& f : files) {
      if (!replay(f)) return 1;
      ++count;
    }
  }
  std::printf("replayed %zu inputs, no mismatch\n", count);
  return 0;
}
