//===- CheckConstants.cpp - the dlas-check-constants pass -----------------===//
#include "DLAS/Support/ConstantData.h"
#include "DLAS/Transforms/Passes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_CHECKCONSTANTS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {
/// An error on `op` for `resource` when its blob is missing or does not
/// hold the bytes its type needs.
LogicalResult checkResource(Operation *op, DenseResourceElementsAttr resource) {
  auto type = cast<ShapedType>(resource.getType());
  StringRef key = resource.getRawHandle().getKey();
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  if (!blob)
    return op->emitError() << "dense_resource '" << key << "' of type " << type
                           << " has no data (was it printed elided?)";
  std::optional<int64_t> needed = dlas::denseByteCount(type);
  if (!needed)
    return op->emitError() << "dense_resource '" << key << "' has type "
                           << type
                           << ", whose bytes DLAS cannot count (a static "
                              "shape of byte-sized elements is needed)";
  if (static_cast<int64_t>(blob->getData().size()) != *needed)
    return op->emitError() << "dense_resource '" << key << "' of type " << type
                           << " holds " << blob->getData().size()
                           << " bytes, where its type needs " << *needed;
  return success();
}

struct CheckConstantsPass
    : dlas::impl::CheckConstantsBase<CheckConstantsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      op->getAttrDictionary().walk([&](DenseResourceElementsAttr resource) {
        failed |= mlir::failed(checkResource(op, resource));
      });
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
