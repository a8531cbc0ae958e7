// Writes the seeds of fuzz/corpus/ofi_conn_req/ (valid requests need the
// MAC, so make_seeds.py cannot): bazel run //fuzz:ofi_conn_req_seeds -- $PWD/fuzz/corpus/ofi_conn_req
#include <cstdio>
#include <string>
#include <cstring>
#include "mesh/providers/ofi/ofi_auth.h"
using namespace meshmp::mesh;
int main(int, char** argv) {
  const tcp::LinkKey key = tcp::derive_key("fuzzer job secret");
  const ofi::ListenerId l{};
  auto write = [&](const char* name, std::uint32_t me, std::uint32_t n, const void* d, size_t len) {
    std::FILE* f = std::fopen((std::string(argv[1]) + "/" + name).c_str(), "wb");
    std::fwrite(&me, 4, 1, f); std::fwrite(&n, 4, 1, f); std::fwrite(d, 1, len, f); std::fclose(f);
  };
  ofi::ConnReq r = ofi::make_conn_req(key, l, 3, 5, 1, 0);
  write("valid_neighbour", 5, 8, &r, sizeof r);
  ofi::ConnReq d = ofi::make_conn_req(key, l, 0, 1, 0, ofi::kOnDemand);
  write("valid_on_demand", 1, 2, &d, sizeof d);
  write("truncated", 5, 8, &r, 20);
  ofi::ConnReq w = ofi::make_conn_req(tcp::derive_key("other"), l, 3, 5, 1, 0);
  write("wrong_key", 5, 8, &w, sizeof w);
}
