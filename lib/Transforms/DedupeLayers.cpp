//===- DedupeLayers.cpp - the dlas-dedupe-layers pass ---------------------===//
//
// Layer functions that differ only in the constant globals they read share
// one body; the globals become arguments. Each kernel is then optimized and
// emitted once per shape instead of once per layer.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::dlas {
#define GEN_PASS_DEF_DEDUPELAYERS
#include "DLAS/Transforms/Passes.h.inc"
} // namespace mlir::dlas

using namespace mlir;

namespace {

constexpr StringLiteral kLayerAttr = "dlas.layer";

/// The constant global a get_global reads, or null.
memref::GlobalOp constantGlobal(memref::GetGlobalOp get,
                                SymbolTable &symbols) {
  auto global = symbols.lookup<memref::GlobalOp>(get.getName());
  return global && global.getConstant() ? global : memref::GlobalOp();
}

/// A get_global's properties without the global's name.
Attribute propertiesWithoutName(Operation *op) {
  auto properties =
      dyn_cast_or_null<DictionaryAttr>(op->getPropertiesAsAttribute());
  if (!properties)
    return op->getPropertiesAsAttribute();
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute entry : properties)
    if (entry.getName() != "name")
      kept.push_back(entry);
  return DictionaryAttr::get(op->getContext(), kept);
}

/// A hash of a function's body that ignores which constant globals it
/// reads, and SSA names: equal for the functions this pass may merge.
llvm::hash_code bodyHash(func::FuncOp func, SymbolTable &symbols) {
  llvm::hash_code hash = llvm::hash_value(func.getFunctionType().getAsOpaquePointer());
  func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto get = dyn_cast<memref::GetGlobalOp>(op);
    Attribute properties = get && constantGlobal(get, symbols)
                               ? propertiesWithoutName(op)
                               : op->getPropertiesAsAttribute();
    hash = llvm::hash_combine(
        hash, op->getName().getAsOpaquePointer(),
        op->getRawDictionaryAttrs().getAsOpaquePointer(),
        properties.getAsOpaquePointer(), op->getNumOperands(),
        op->getNumRegions());
    for (Type type : op->getResultTypes())
      hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
  });
  return hash;
}

/// Whether `b`'s body is `a`'s op for op, up to the constant globals read;
/// on success `globals` maps each of `a`'s constant globals to `b`'s, one
/// to one (a layer reading one weight twice must not merge with one that
/// reads two weights).
bool sameBodyUpToGlobals(func::FuncOp a, func::FuncOp b, SymbolTable &symbols,
                         llvm::MapVector<StringAttr, StringAttr> &globals) {
  if (a.getFunctionType() != b.getFunctionType())
    return false;
  SmallVector<Operation *> opsA, opsB;
  a.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) { opsA.push_back(op); });
  b.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) { opsB.push_back(op); });
  if (opsA.size() != opsB.size())
    return false;
  IRMapping map;
  DenseMap<StringAttr, StringAttr> reverse;
  auto mapBlocks = [&](Region &ra, Region &rb) {
    if (ra.getBlocks().size() != rb.getBlocks().size())
      return false;
    for (auto [ba, bb] : llvm::zip(ra.getBlocks(), rb.getBlocks())) {
      if (ba.getArgumentTypes() != bb.getArgumentTypes())
        return false;
      map.map(&ba, &bb);
      map.map(ba.getArguments(), bb.getArguments());
    }
    return true;
  };
  if (!mapBlocks(a.getBody(), b.getBody()))
    return false;
  for (auto [opA, opB] : llvm::zip(opsA, opsB)) {
    if (opA->getName() != opB->getName() ||
        opA->getNumOperands() != opB->getNumOperands() ||
        opA->getNumRegions() != opB->getNumRegions() ||
        opA->getNumSuccessors() != opB->getNumSuccessors() ||
        opA->getResultTypes() != opB->getResultTypes() ||
        opA->getRawDictionaryAttrs() != opB->getRawDictionaryAttrs())
      return false;
    for (auto [x, y] : llvm::zip(opA->getOperands(), opB->getOperands()))
      if (map.lookupOrNull(x) != y)
        return false;
    for (auto [x, y] : llvm::zip(opA->getSuccessors(), opB->getSuccessors()))
      if (map.lookupOrNull(x) != y)
        return false;
    auto getA = dyn_cast<memref::GetGlobalOp>(opA);
    auto getB = dyn_cast<memref::GetGlobalOp>(opB);
    if (getA && constantGlobal(getA, symbols) &&
        constantGlobal(getB, symbols)) {
      if (propertiesWithoutName(opA) != propertiesWithoutName(opB))
        return false;
      StringAttr nameA = getA.getNameAttr().getAttr();
      StringAttr nameB = getB.getNameAttr().getAttr();
      auto [it, insertedA] = globals.insert({nameA, nameB});
      auto [rit, insertedB] = reverse.insert({nameB, nameA});
      if (it->second != nameB || rit->second != nameA)
        return false;
    } else if (opA->getPropertiesAsAttribute() !=
               opB->getPropertiesAsAttribute()) {
      return false;
    }
    map.map(opA->getResults(), opB->getResults());
    for (auto [ra, rb] : llvm::zip(opA->getRegions(), opB->getRegions()))
      if (!mapBlocks(ra, rb))
        return false;
  }
  return true;
}

/// Turns every constant global `func` reads into a trailing argument, in
/// the order `globals` lists them.
void globalsToArguments(func::FuncOp func, ArrayRef<StringAttr> globals,
                        SymbolTable &symbols) {
  Block &entry = func.getBody().front();
  DenseMap<StringAttr, BlockArgument> arguments;
  for (StringAttr name : globals) {
    auto global = symbols.lookup<memref::GlobalOp>(name);
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(index, global.getType(), {}, func.getLoc())))
      llvm_unreachable("inserting a trailing argument cannot fail");
    arguments[name] = entry.getArgument(index);
  }
  func.getBody().walk([&](memref::GetGlobalOp get) {
    auto it = arguments.find(get.getNameAttr().getAttr());
    if (it == arguments.end())
      return;
    get.getResult().replaceAllUsesWith(it->second);
    get.erase();
  });
}

struct DedupeLayersPass : dlas::impl::DedupeLayersBase<DedupeLayersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SymbolTableCollection collection;
    SymbolUserMap users(collection, module);

    // Candidates: private layer functions whose only uses are calls.
    llvm::MapVector<llvm::hash_code, SmallVector<func::FuncOp>> byHash;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(kLayerAttr) || !func.isPrivate() || func.isExternal())
        continue;
      bool onlyCalls = llvm::all_of(users.getUsers(func), [](Operation *user) {
        return isa<func::CallOp>(user);
      });
      if (onlyCalls)
        byHash[bodyHash(func, symbols)].push_back(func);
    }

    for (auto &[hash, candidates] : byHash) {
      // Split the bucket into groups of truly equal bodies.
      SmallVector<func::FuncOp> pending = candidates;
      while (pending.size() > 1) {
        func::FuncOp shared = pending.front();
        SmallVector<func::FuncOp> rest;
        // Each member with the globals it reads where `shared` reads its own.
        SmallVector<std::pair<func::FuncOp, SmallVector<StringAttr>>> members;
        SmallVector<StringAttr> sharedGlobals;
        for (func::FuncOp other : ArrayRef(pending).drop_front()) {
          llvm::MapVector<StringAttr, StringAttr> globals;
          if (!sameBodyUpToGlobals(shared, other, symbols, globals)) {
            rest.push_back(other);
            continue;
          }
          if (sharedGlobals.empty())
            for (auto &entry : globals)
              sharedGlobals.push_back(entry.first);
          SmallVector<StringAttr> own;
          for (StringAttr name : sharedGlobals)
            own.push_back(globals.lookup(name));
          members.push_back({other, own});
        }
        if (!members.empty())
          merge(shared, sharedGlobals, members, users, symbols);
        pending = std::move(rest);
      }
    }
  }

  void merge(func::FuncOp shared, ArrayRef<StringAttr> sharedGlobals,
             ArrayRef<std::pair<func::FuncOp, SmallVector<StringAttr>>> members,
             SymbolUserMap &users, SymbolTable &symbols) {
    OpBuilder builder(&getContext());
    // Each call passes its own layer's globals.
    auto redirect = [&](func::FuncOp callee, ArrayRef<StringAttr> globals) {
      for (Operation *user : users.getUsers(callee)) {
        auto call = cast<func::CallOp>(user);
        builder.setInsertionPoint(call);
        SmallVector<Value> operands(call.getOperands());
        for (StringAttr name : globals) {
          auto global = symbols.lookup<memref::GlobalOp>(name);
          operands.push_back(memref::GetGlobalOp::create(
              builder, call.getLoc(), global.getType(), name.getValue()));
        }
        auto newCall = func::CallOp::create(builder, call.getLoc(), shared,
                                            operands);
        newCall->setDiscardableAttrs(call->getDiscardableAttrDictionary());
        call.replaceAllUsesWith(newCall.getResults());
        call.erase();
      }
    };
    SmallVector<std::string> layerNames{
        shared->getAttrOfType<StringAttr>(kLayerAttr).getValue().str()};
    redirect(shared, sharedGlobals);
    for (auto &[member, globals] : members) {
      if (auto name = member->getAttrOfType<StringAttr>(kLayerAttr))
        layerNames.push_back(name.getValue().str());
      redirect(member, globals);
      symbols.erase(member);
      ++numMerged;
    }
    globalsToArguments(shared, sharedGlobals, symbols);
    shared->setAttr(kLayerAttr,
                    builder.getStringAttr(llvm::join(layerNames, "; ")));
  }
};

} // namespace
