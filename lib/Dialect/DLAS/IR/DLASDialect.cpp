//===- DLASDialect.cpp - codegen attributes: targets ----------------------===//
#include "DLAS/Dialect/DLAS/DLASDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dlas;

#include "DLAS/Dialect/DLAS/DLASDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "DLAS/Dialect/DLAS/DLASAttrs.cpp.inc"

void DLASDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "DLAS/Dialect/DLAS/DLASAttrs.cpp.inc"
      >();
}

LogicalResult DLASDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  // Other dlas.* attributes (dlas.layer, dlas.signature, per-op tiles)
  // belong to the passes that set and read them.
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<CPUTargetAttr>(attr.getValue()))
    return op->emitError() << "'" << kTargetAttrName
                           << "' must be a #dlas.cpu_target, got "
                           << attr.getValue();
  return success();
}

ArrayRef<StringRef> dlas::codegenFeatureNames() {
  static const StringRef names[] = {
      "sse4.2",     "avx",        "avx2",       "fma",     "f16c",
      "avx512f",    "avx512dq",   "avx512bw",   "avx512vl", "avx512vnni",
      "avx512bf16", "avx512fp16", "avxvnni",    "amx-tile", "amx-bf16",
      "amx-int8"};
  return names;
}

CPUTargetAttr dlas::getCheckedCPUTarget(
    function_ref<InFlightDiagnostic()> emitError, MLIRContext *context,
    StringRef cpu, StringRef features, int64_t vectorBits,
    int64_t vectorRegisters, int64_t l1, int64_t l2, int64_t l3,
    int64_t fmaPerCycle) {
  return CPUTargetAttr::getChecked(emitError, context, cpu, features,
                                   vectorBits, vectorRegisters, l1, l2, l3,
                                   fmaPerCycle);
}

CPUTargetAttr dlas::lookupCPUTarget(Operation *op) {
  for (; op; op = op->getParentOp())
    if (auto target =
            op->getAttrOfType<CPUTargetAttr>(DLASDialect::kTargetAttrName))
      return target;
  return {};
}

bool CPUTargetAttr::hasFeature(StringRef name) const {
  SmallVector<StringRef> listed;
  getFeatures().split(listed, ',', -1, /*KeepEmpty=*/false);
  return llvm::is_contained(listed, ("+" + name).str());
}

std::string CPUTargetAttr::llvmFeatureString() const {
  SmallVector<std::string> entries;
  for (StringRef name : codegenFeatureNames())
    entries.push_back((hasFeature(name) ? "+" : "-") + name.str());
  return llvm::join(entries, ",");
}

LogicalResult
CPUTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef cpu, StringRef features, int64_t vectorBits,
                      int64_t vectorRegisters, int64_t l1, int64_t l2,
                      int64_t l3, int64_t fmaPerCycle) {
  if (cpu.empty())
    return emitError() << "cpu must name an LLVM CPU";
  SmallVector<StringRef> listed;
  features.split(listed, ',', -1, /*KeepEmpty=*/false);
  for (StringRef entry : listed) {
    if (!entry.consume_front("+"))
      return emitError() << "features lists what the target has, as "
                            "'+name' entries; got '"
                         << entry << "'";
    if (!llvm::is_contained(codegenFeatureNames(), entry))
      return emitError() << "unknown feature '" << entry
                         << "' (known: "
                         << llvm::join(codegenFeatureNames(), ", ") << ")";
  }
  auto has = [&](StringRef name) {
    return llvm::is_contained(listed, ("+" + name).str());
  };
  if (vectorBits != 128 && vectorBits != 256 && vectorBits != 512)
    return emitError() << "vector_bits must be 128, 256 or 512, got "
                       << vectorBits;
  if (vectorBits == 512 && !has("avx512f"))
    return emitError() << "vector_bits = 512 needs +avx512f in features";
  if (vectorBits == 256 && !has("avx"))
    return emitError() << "vector_bits = 256 needs +avx in features";
  if (vectorRegisters != 16 && vectorRegisters != 32)
    return emitError() << "vector_registers must be 16 or 32, got "
                       << vectorRegisters;
  if (vectorRegisters == 32 && !has("avx512f"))
    return emitError() << "vector_registers = 32 needs +avx512f in features";
  if (l1 <= 0 || l2 <= 0 || l3 <= 0)
    return emitError() << "cache sizes must be positive, got l1 = " << l1
                       << ", l2 = " << l2 << ", l3 = " << l3;
  if (fmaPerCycle <= 0)
    return emitError() << "fma_per_cycle must be positive, got "
                       << fmaPerCycle;
  return success();
}
