//===- AsanOptions.h - ASan settings every DLAS fuzzer runs with -*- C++ -*-===//
//
// Debian's libMLIR.so and libLLVM.so are not instrumented, but the LLVM
// headers compiled into DLAS are: their inline allocator code poisons and
// unpoisons memory that the libraries' own copies of it then use, which
// ASan reports as use-after-poison. Manual poisoning is turned off; real
// out-of-bounds accesses and use-after-free are still found.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_FUZZ_ASANOPTIONS_H
#define DLAS_FUZZ_ASANOPTIONS_H

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

#endif // DLAS_FUZZ_ASANOPTIONS_H
