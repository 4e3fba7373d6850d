#pragma once
// Huge pages for the simulator's heap. A simulation of thousands of peers
// reads them in no order a cache can follow, and with 4 KiB pages nearly
// every such read also misses the TLB: at 10,000 peers glibc's huge-page
// heap (the glibc.malloc.hugetlb tunable) takes a tenth off the run
// (docs/performance.md). glibc reads its tunables once, at start, so gridsim
// starts itself again with the tunable set.

namespace gridpeer::sim {

/// Starts this program again from its beginning, with the same arguments and
/// GLIBC_TUNABLES naming glibc.malloc.hugetlb=1, unless the environment
/// already names that tunable (set it to 0 to keep 4 KiB pages, as under
/// valgrind). Returns only when the program goes on as it is.
void restart_with_huge_pages(char** argv);

}  // namespace gridpeer::sim
