//===- EntryAttrs.h - attributes on an entry function's edges ---*- C++ -*-===//
//
// Names shared by the producers of entry functions (the ONNX importer) and
// the passes and tools that read them; a header of its own so that both
// sides include it without depending on each other.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_SUPPORT_ENTRYATTRS_H
#define DLAS_SUPPORT_ENTRYATTRS_H

#include "llvm/ADT/StringRef.h"

namespace mlir::dlas {

/// On an entry's i8 argument or result: its bytes are UINT8 (the function
/// converts them), and the entry's signature calls it ui8.
inline constexpr llvm::StringLiteral kUnsignedAttrName = "dlas.unsigned";

} // namespace mlir::dlas

#endif // DLAS_SUPPORT_ENTRYATTRS_H
