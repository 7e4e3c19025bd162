// jemalloc's options for the static parlint binary, read by jemalloc when it starts (MALLOC_CONF in the
// environment still overrides them). On a virtual machine a page fault costs tens of microseconds, and
// the heap's first touch of each 4 KiB page was half of the page faults of linting one script (133 of
// 290): transparent huge pages for the heap and for jemalloc's own metadata take one fault per 2 MiB.
// Measured on the 2 KB sbatch of tests/bench/startup: 290 -> 163 faults, 6.8 -> 5.9 ms; 1,600 launches
// in one script 7,795 -> 1,970 faults, 0.16 -> 0.12 s. The cost is resident memory rounded up to huge
// pages (14 -> 18 MiB on the corpus's shell files); a kernel with THP off ignores the option.
extern "C" {
// NOLINTNEXTLINE: the name and type jemalloc looks up.
const char* malloc_conf = "thp:always,metadata_thp:always";
}
