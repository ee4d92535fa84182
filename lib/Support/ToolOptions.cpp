//===- ToolOptions.cpp - command lines of the DLAS tools ------------------===//
#include "DLAS/Support/ToolOptions.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

bool mlir::dlas::parseToolOptions(int argc, const char *const *argv,
                                  llvm::StringRef overview) {
  std::string complaints;
  llvm::raw_string_ostream stream(complaints);
  if (llvm::cl::ParseCommandLineOptions(argc, argv, overview, &stream))
    return true;
  llvm::StringRef tool = llvm::sys::path::filename(argv[0]);
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(complaints).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    // cl prefixes its messages with the program name as invoked.
    line.consume_front(argv[0]);
    line.consume_front(tool);
    line = line.ltrim(": ").trim();
    llvm::errs() << tool << ": error: " << line << "\n";
  }
  return false;
}
