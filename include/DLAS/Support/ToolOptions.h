//===- ToolOptions.h - command lines of the DLAS tools ----------*- C++ -*-===//
#ifndef DLAS_SUPPORT_TOOLOPTIONS_H
#define DLAS_SUPPORT_TOOLOPTIONS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::dlas {

/// llvm::cl::ParseCommandLineOptions, with its complaints ("<tool>: for the
/// --x option: ...") reported as the tools report every other error:
/// "<tool>: error: ...". False when the command line is wrong.
bool parseToolOptions(int argc, const char *const *argv,
                      llvm::StringRef overview);

} // namespace mlir::dlas

#endif // DLAS_SUPPORT_TOOLOPTIONS_H
