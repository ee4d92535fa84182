//===- DeviceBuffers.cpp - the dlas-gpu-device-buffers pass ---------------===//
//
// After the kernels are gpu.launch ops, every buffer moves to device
// memory: host code allocates, launches and copies, and touches no element
// itself. The entry functions keep their host ABI by copying at their
// edges, so dlas-run and AOT callers pass host buffers as on the CPU.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_GPUDEVICEBUFFERS
#include "DLAS/Codegen/GPU/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

/// The runtime function that returns the device copy of a constant of
/// element type `element`: one symbol per element type, all of them the
/// same C function (`dlas_gpu_constant` in the GPU runtime).
static std::string constantFunctionName(Type element) {
  std::string name;
  llvm::raw_string_ostream os(name);
  os << "dlas_gpu_constant_" << element;
  return name;
}

/// The declaration of the constant-upload function for `element`.
static func::FuncOp constantFunction(ModuleOp module, Type element) {
  std::string name = constantFunctionName(element);
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto unranked = UnrankedMemRefType::get(element, 0);
  auto type =
      builder.getFunctionType({unranked, builder.getI64Type()}, {unranked});
  auto function = func::FuncOp::create(builder, module.getLoc(), name, type);
  function.setPrivate();
  return function;
}

/// The dynamic sizes of `value` (a memref), for an allocation like it.
static SmallVector<Value> dynamicSizes(OpBuilder &builder, Location loc,
                                       Value value) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(value.getType());
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      sizes.push_back(memref::DimOp::create(builder, loc, value, i));
  return sizes;
}

/// True for ops that run on the host (not in a kernel or device module).
static bool onHost(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

/// An op in host code that reads or writes a buffer's elements, which are
/// on the device after this pass; null when there is none.
static Operation *findHostElementAccess(func::FuncOp function) {
  Operation *found = nullptr;
  function.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (op->getDialect() && isa<gpu::GPUDialect>(op->getDialect()))
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (auto &instance : instances) {
      Value value = instance.getValue();
      bool touchesElements =
          isa<MemoryEffects::Read, MemoryEffects::Write>(instance.getEffect());
      if (touchesElements && value && isa<BaseMemRefType>(value.getType())) {
        found = op;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

/// What a device buffer's memory comes from, through views and casts.
static Value rootOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def)) {
      value = view.getViewSource();
      continue;
    }
    if (auto cast = dyn_cast<memref::CastOp>(def)) {
      value = cast.getSource();
      continue;
    }
    break;
  }
  return value;
}

namespace {
struct GPUDeviceBuffersPass
    : dlas::impl::GPUDeviceBuffersBase<GPUDeviceBuffersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    SmallVector<func::FuncOp> functions;
    for (auto function : module.getOps<func::FuncOp>())
      if (!function.isExternal())
        functions.push_back(function);
    for (func::FuncOp function : functions) {
      if (failed(moveBuffersToDevice(rewriter, module, function)))
        return signalPassFailure();
      if (function.isPublic() && failed(copyAtEdges(rewriter, function)))
        return signalPassFailure();
      if (Operation *op = findHostElementAccess(function)) {
        op->emitOpError()
            << "would read or write a device buffer's elements on the host; "
               "the GPU pipeline runs every computation in a kernel (is "
               "there an op dlas-gpu-map-kernels does not lower?)";
        return signalPassFailure();
      }
    }
  }

  /// Allocations, deallocations and constants of `function`'s host code.
  LogicalResult moveBuffersToDevice(RewriterBase &rewriter, ModuleOp module,
                                    func::FuncOp function) {
    SmallVector<Operation *> ops;
    function.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
              memref::GetGlobalOp>(op) &&
          onHost(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::AllocOp>(
            alloc, alloc.getType(), /*asyncToken=*/Type(), ValueRange{},
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/false);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
            dealloc, /*asyncToken=*/Type(), ValueRange{}, dealloc.getMemref());
      } else if (isa<memref::AllocaOp>(op)) {
        return op->emitOpError(
            "a stack buffer in host code cannot hold device data; the GPU "
            "pipeline needs heap buffers (memref.alloc)");
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        MemRefType type = global.getType();
        if (!type.hasStaticShape() || !type.getLayout().isIdentity())
          return op->emitOpError("a constant for the GPU needs a static, "
                                 "contiguous type");
        Type element = type.getElementType();
        if (!element.isIntOrFloat())
          return op->emitOpError("constants of element type ")
                 << element << " cannot be copied to the GPU";
        int64_t bytes = type.getNumElements() *
                        llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
        func::FuncOp upload = constantFunction(module, element);
        rewriter.setInsertionPointAfter(global);
        Value host = memref::CastOp::create(
            rewriter, loc, UnrankedMemRefType::get(element, 0), global);
        Value size = arith::ConstantIntOp::create(rewriter, loc, bytes, 64);
        Value device =
            func::CallOp::create(rewriter, loc, upload, ValueRange{host, size})
                .getResult(0);
        Value ranked = memref::CastOp::create(rewriter, loc, type, device);
        rewriter.replaceAllUsesExcept(global, ranked, host.getDefiningOp());
      }
    }
    return success();
  }

  /// A public function takes and returns host buffers: its memref
  /// arguments are copied to device buffers on entry, its results back to
  /// new host buffers before each return, and the device buffers it made
  /// are freed there.
  LogicalResult copyAtEdges(RewriterBase &rewriter, func::FuncOp function) {
    Block &entry = function.getBody().front();
    SmallVector<Value> inputCopies;
    rewriter.setInsertionPointToStart(&entry);
    for (BlockArgument argument : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(argument.getType());
      if (!type)
        continue;
      if (!type.getLayout().isIdentity())
        return function.emitOpError("argument #")
               << argument.getArgNumber()
               << " has a strided layout; the GPU entry copies contiguous "
                  "buffers only";
      Location loc = argument.getLoc();
      auto alloc = gpu::AllocOp::create(
          rewriter, loc, type, /*asyncToken=*/Type(), ValueRange{},
          dynamicSizes(rewriter, loc, argument), ValueRange{},
          /*hostShared=*/false);
      auto copy =
          gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(),
                                ValueRange{}, alloc.getMemref(), argument);
      SmallPtrSet<Operation *, 4> keep{copy};
      for (Operation *user : argument.getUsers())
        if (auto dim = dyn_cast<memref::DimOp>(user);
            dim && dim->isBeforeInBlock(alloc))
          keep.insert(dim);
      rewriter.replaceAllUsesExcept(argument, alloc.getMemref(), keep);
      inputCopies.push_back(alloc.getMemref());
    }
    SmallVector<func::ReturnOp> returns(function.getOps<func::ReturnOp>());
    for (func::ReturnOp ret : returns) {
      rewriter.setInsertionPoint(ret);
      Location loc = ret.getLoc();
      SmallVector<Value> results(ret.getOperands());
      llvm::SetVector<Value> toFree;
      for (Value &result : results) {
        auto type = dyn_cast<MemRefType>(result.getType());
        if (!type)
          continue;
        if (!type.getLayout().isIdentity())
          return ret.emitOpError("returns a strided buffer; the GPU entry "
                                 "copies contiguous buffers only");
        Value host = memref::AllocOp::create(
            rewriter, loc, type, dynamicSizes(rewriter, loc, result));
        gpu::MemcpyOp::create(rewriter, loc, /*asyncToken=*/Type(),
                              ValueRange{}, host, result);
        Value root = rootOf(result);
        // Device buffers this function made or received from a callee; not
        // the input copies (freed below) or the cached constants.
        auto call = root.getDefiningOp<func::CallOp>();
        bool owned =
            root.getDefiningOp<gpu::AllocOp>() ||
            (call && !call.getCallee().starts_with("dlas_gpu_constant_"));
        if (owned && !llvm::is_contained(inputCopies, root))
          toFree.insert(root);
        result = host;
      }
      for (Value buffer : toFree)
        gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                               ValueRange{}, buffer);
      for (Value buffer : inputCopies)
        gpu::DeallocOp::create(rewriter, loc, /*asyncToken=*/Type(),
                               ValueRange{}, buffer);
      ret.getOperandsMutable().assign(results);
    }
    return success();
  }
};
} // namespace
