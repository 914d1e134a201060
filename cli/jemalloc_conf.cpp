// jemalloc's settings, read once when it starts (an environment's MALLOC_CONF still overrides
// them). Linked only when ptlint links jemalloc (PTLINT_JEMALLOC).
//
// narenas:1 — every thread allocates from one arena (through its own cache). Under an
// address-space limit, jemalloc 5.3 crashed in a new thread whose own arena it could not create.
// retain:false — freed address space is unmapped rather than kept for reuse. Under an
// address-space limit (`ulimit -v`, RLIMIT_AS), a file whose tree does not fit fails with "out of
// memory", and the space its parse took must come back for the files after it: jemalloc's default
// on Linux keeps it reserved, and the next file then failed as well.
extern "C" {
// NOLINTNEXTLINE: the name jemalloc looks up.
const char* malloc_conf = "narenas:1,retain:false";
}
