//===- Compile.cpp - ahead-of-time objects and their C headers ------------===//
#include "DLAS/Runner/Compile.h"

#include "DLAS/Transforms/Passes.h"

#include "DLAS/Runner/ParallelCodegen.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

/// Gives each weight global that dlas-externalize-weights declared its data
/// (module attribute dlas.external_weights) as one raw LLVM constant: the
/// bytes go to the object as they are, where an MLIR dense constant becomes
/// one LLVM constant per element (resnet50: 18 s of LLVM time, 2 s now).
static llvm::Error defineExternalWeights(ModuleOp module,
                                         llvm::Module &llvmModule) {
  auto weights =
      module->getAttrOfType<DictionaryAttr>(dlas::kExternalWeightsAttrName);
  if (!weights)
    return llvm::Error::success();
  for (NamedAttribute entry : weights) {
    auto value = dyn_cast<DenseResourceElementsAttr>(entry.getValue());
    AsmResourceBlob *blob = value ? value.getRawHandle().getBlob() : nullptr;
    llvm::GlobalVariable *declared =
        llvmModule.getGlobalVariable(entry.getName().getValue(), true);
    if (!blob || !declared)
      return llvm::createStringError("external weight '%s' has no data",
                                     entry.getName().str().c_str());
    llvm::Type *element = declared->getValueType();
    while (auto *array = llvm::dyn_cast<llvm::ArrayType>(element))
      element = array->getElementType();
    ArrayRef<char> bytes = blob->getData();
    uint64_t count = bytes.size() / (element->getPrimitiveSizeInBits() / 8);
    llvm::Constant *data = llvm::ConstantDataArray::getRaw(
        StringRef(bytes.data(), bytes.size()), count, element);
    auto *defined = new llvm::GlobalVariable(
        llvmModule, data->getType(), /*isConstant=*/true,
        llvm::GlobalValue::InternalLinkage, data);
    defined->setAlignment(llvm::Align(64));
    defined->takeName(declared);
    declared->replaceAllUsesWith(defined);
    declared->eraseFromParent();
  }
  return llvm::Error::success();
}

llvm::Error dlas::emitObjectFile(ModuleOp module,
                                 llvm::TargetMachine &targetMachine,
                                 unsigned optLevel,
                                 llvm::raw_pwrite_stream &os) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("cannot translate the module to LLVM IR");
  if (llvm::Error error = defineExternalWeights(module, *llvmModule))
    return error;
  // One object: a relocatable object cannot be linked from several here.
  CodegenOptions codegen;
  codegen.cpu = targetMachine.getTargetCPU().str();
  codegen.features = targetMachine.getTargetFeatureString().str();
  codegen.optLevel = optLevel;
  codegen.threads = 1;
  auto objects = compileToObjects(std::move(llvmModule), codegen);
  if (!objects)
    return objects.takeError();
  for (auto &object : *objects)
    os << object->getBuffer();
  return llvm::Error::success();
}

namespace {
/// The C type of a tensor element, or "" for one C cannot name.
std::string cElementType(Type type) {
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (type.isF16() || type.isBF16())
    return "uint16_t"; // raw 16-bit floats
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return "bool";
    case 8:
    case 16:
    case 32:
    case 64:
      return (integer.isUnsigned() ? "uint" : "int") +
             std::to_string(integer.getWidth()) + "_t";
    }
  }
  return "";
}

std::string shapeComment(ShapedType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(type.getShape(), os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "] " << type.getElementType();
  return text;
}

/// One memref descriptor struct of the MLIR C interface.
void writeDescriptor(llvm::raw_ostream &os, StringRef name,
                     StringRef element, int64_t rank) {
  os << "typedef struct {\n  " << element << " *allocated;\n  " << element
     << " *aligned;\n  int64_t offset;\n";
  if (rank > 0)
    os << "  int64_t sizes[" << rank << "];\n  int64_t strides[" << rank
       << "];\n";
  os << "} " << name << ";\n";
}
} // namespace

llvm::Error dlas::writeCHeader(const CHeaderInfo &info, llvm::raw_ostream &os) {
  const std::string &p = info.prefix;
  std::string guard = llvm::StringRef(p).upper() + "_H";
  SmallVector<ShapedType> inputs, results;
  auto collect = [&](TypeRange types, SmallVector<ShapedType> &into,
                     StringRef what) -> llvm::Error {
    for (auto [i, type] : llvm::enumerate(types)) {
      auto shaped = dyn_cast<RankedTensorType>(type);
      if (!shaped || cElementType(shaped.getElementType()).empty()) {
        std::string typeText;
        llvm::raw_string_ostream(typeText) << type;
        return llvm::createStringError(llvm::formatv(
            "{0} #{1} of '{2}' has type {3}, which the C header cannot "
            "describe (ranked tensors of float, half, bf16 and integers)",
            what, i, info.entrySymbol, typeText).str());
      }
      into.push_back(shaped);
    }
    return llvm::Error::success();
  };
  if (llvm::Error e = collect(info.signature.getInputs(), inputs, "input"))
    return e;
  if (llvm::Error e = collect(info.signature.getResults(), results, "result"))
    return e;
  bool staticShapes = llvm::all_of(inputs, [](ShapedType t) {
                        return t.hasStaticShape();
                      }) &&
                      llvm::all_of(results, [](ShapedType t) {
                        return t.hasStaticShape();
                      });

  os << "/* Generated by dlas-compile from " << info.source << ": entry '"
     << info.entrySymbol << "' for CPU " << info.target << " ("
     << info.features << ").\n"
     << " * Link with the object and libomp (-lomp -lm). The weights are in\n"
     << " * the object's read-only data: nothing to load or bind at run time.\n"
     << " */\n#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n"
     << "#include <string.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  // Shapes and sizes.
  os << "#define " << llvm::StringRef(p).upper() << "_NUM_INPUTS "
     << inputs.size() << "\n#define " << llvm::StringRef(p).upper()
     << "_NUM_RESULTS " << results.size() << "\n";
  auto writeShapes = [&](ArrayRef<ShapedType> types, StringRef kind) {
    for (auto [i, t] : llvm::enumerate(types)) {
      os << "/* " << kind << " " << i << ": " << shapeComment(t) << " */\n";
      if (t.hasStaticShape())
        os << "#define " << llvm::StringRef(p).upper() << "_"
           << llvm::StringRef(kind).upper() << i << "_ELEMENTS "
           << t.getNumElements() << "\n";
    }
  };
  writeShapes(inputs, "input");
  writeShapes(results, "result");
  os << "\n/* Memref descriptors of the MLIR C interface. */\n";
  for (auto [i, t] : llvm::enumerate(inputs))
    writeDescriptor(os, p + "_input" + std::to_string(i) + "_t",
                    cElementType(t.getElementType()), t.getRank());
  for (auto [i, t] : llvm::enumerate(results))
    writeDescriptor(os, p + "_result" + std::to_string(i) + "_t",
                    cElementType(t.getElementType()), t.getRank());
  std::string resultType = p + "_result0_t";
  if (results.size() > 1) {
    os << "typedef struct {\n";
    for (size_t i = 0; i < results.size(); ++i)
      os << "  " << p << "_result" << i << "_t r" << i << ";\n";
    os << "} " << p << "_results_t;\n";
    resultType = p + "_results_t";
  }

  // The compiled function.
  os << "\n/* The compiled entry: results are returned in descriptors whose\n"
     << " * buffers the caller frees (see " << p << "_run). */\n"
     << "void _mlir_ciface_" << info.entrySymbol << "(";
  SmallVector<std::string> params;
  if (!results.empty())
    params.push_back(resultType + " *results");
  for (size_t i = 0; i < inputs.size(); ++i)
    params.push_back(p + "_input" + std::to_string(i) + "_t *input" +
                     std::to_string(i));
  os << (params.empty() ? "void" : llvm::join(params, ", ")) << ");\n";

  if (info.gpu) {
    os << "\n/* The GPU runtime the library carries "
          "(DLAS/Runtime/GPURuntime.h):"
          "\n * init opens the driver and the first device; after a failed "
          "call the\n * reason is in dlasGpuLastError(). */\n"
       << "int dlasGpuInit(void);\nconst char *dlasGpuLastError(void);\n"
       << "static inline int " << p << "_init(int unused) {\n"
       << "  (void)unused;\n  return dlasGpuInit();\n}\n";
  } else {
    bool amx = StringRef(info.features).contains("+amx-tile");
    os << "\n/* OpenMP threads of the parallel loops (0: OpenMP's default)";
    if (amx)
      os << ";\n * and the AMX tile state, which Linux gives a process on "
            "request only\n * (arch_prctl ARCH_REQ_XCOMP_PERM for XTILEDATA)";
    os << "; and, under glibc, malloc keeps freed memory mapped. */\n";
    if (amx)
      os << "#include <sys/syscall.h>\n#include <unistd.h>\n";
    // The kernels allocate their scratch (packed panels, patches) per
    // call: with glibc's defaults every block over 128 KiB is a fresh
    // mmap, page-faulted and zeroed per call (a 56x56 int8 3x3 layer ran
    // 1.2 ms instead of 0.29). Keep freed memory mapped, as dlas-run does
    // (keepFreedMemoryMapped); DLAS_NO_MALLOC_TUNING leaves malloc alone.
    os << "#if defined(__GLIBC__) && !defined(DLAS_NO_MALLOC_TUNING)\n"
       << "#include <malloc.h>\n#endif\n"
       << "void omp_set_num_threads(int);\n"
       << "static inline void " << p << "_init(int num_threads) {\n"
       << "#if defined(__GLIBC__) && !defined(DLAS_NO_MALLOC_TUNING)\n"
       << "  mallopt(M_MMAP_THRESHOLD, 32 << 20);\n"
       << "  mallopt(M_TRIM_THRESHOLD, 0x7fffffff);\n#endif\n";
    if (amx)
      os << "  syscall(SYS_arch_prctl, 0x1023, 18);\n";
    os << "  if (num_threads > 0)\n    omp_set_num_threads(num_threads);\n}\n";
  }

  if (!staticShapes) {
    os << "\n/* Dynamic shapes: call _mlir_ciface_" << info.entrySymbol
       << " with descriptors directly. */\n";
  } else {
    // A wrapper over dense row-major buffers.
    auto fill = [&](StringRef var, ShapedType t, StringRef data) {
      os << "  " << var << ".allocated = " << var << ".aligned = ("
         << cElementType(t.getElementType()) << " *)" << data << ";\n  "
         << var << ".offset = 0;\n";
      int64_t stride = 1;
      for (int64_t d = t.getRank() - 1; d >= 0; --d) {
        os << "  " << var << ".sizes[" << d << "] = " << t.getDimSize(d)
           << "; " << var << ".strides[" << d << "] = " << stride << ";\n";
        stride *= t.getDimSize(d);
      }
    };
    os << "\n/* Runs the entry on dense row-major inputs and copies each "
          "result into its\n * caller-owned dense buffer. Returns 0 (GPU code: "
          "-1 after a GPU\n * error). */\n"
       << "static inline int " << p << "_run(";
    SmallVector<std::string> args;
    for (auto [i, t] : llvm::enumerate(inputs))
      args.push_back("const " + cElementType(t.getElementType()) +
                     " *input" + std::to_string(i));
    for (auto [i, t] : llvm::enumerate(results))
      args.push_back(cElementType(t.getElementType()) + " *result" +
                     std::to_string(i));
    os << (args.empty() ? "void" : llvm::join(args, ", ")) << ") {\n";
    for (auto [i, t] : llvm::enumerate(inputs)) {
      std::string var = "in" + std::to_string(i);
      os << "  " << p << "_input" << i << "_t " << var << ";\n";
      fill(var, t, "input" + std::to_string(i));
    }
    os << "  " << resultType << " out;\n  _mlir_ciface_" << info.entrySymbol
       << "(";
    SmallVector<std::string> callArgs;
    if (!results.empty())
      callArgs.push_back("&out");
    for (size_t i = 0; i < inputs.size(); ++i)
      callArgs.push_back("&in" + std::to_string(i));
    os << llvm::join(callArgs, ", ") << ");\n";
    for (auto [i, t] : llvm::enumerate(results)) {
      std::string r = results.size() > 1 ? "out.r" + std::to_string(i) : "out";
      // Results are dense (dlas-cpu-pipeline returns identity layouts):
      // one memcpy. A strided one still comes out right, walked by its
      // strides (a division per element and dim: 0.3 ms for 50k floats,
      // as long as the layer that made them).
      os << "  {\n    const " << cElementType(t.getElementType())
         << " *src = " << r << ".aligned + " << r << ".offset;\n"
         << "    int64_t n = " << t.getNumElements() << ", rank = "
         << t.getRank() << ";\n";
      if (t.getRank() > 0)
        os << "    int64_t dense = 1;\n"
           << "    for (int64_t d = rank - 1; d >= 0; --d) {\n"
           << "      if (" << r << ".sizes[d] != 1 && " << r
           << ".strides[d] != dense)\n        dense = 0;\n"
           << "      dense = dense ? dense * " << r << ".sizes[d] : 0;\n"
           << "    }\n"
           << "    if (dense) {\n      memcpy(result" << i
           << ", src, (size_t)n * sizeof(*src));\n    } else\n";
      os << "    for (int64_t flat = 0; flat < n; ++flat) {\n"
         << "      int64_t rest = flat, at = 0;\n"
         << "      for (int64_t d = rank - 1; d >= 0; --d) {\n";
      if (t.getRank() > 0)
        os << "        at += (rest % " << r << ".sizes[d]) * " << r
           << ".strides[d];\n        rest /= " << r << ".sizes[d];\n";
      os << "      }\n      result" << i << "[flat] = src[at];\n    }\n  }\n";
    }
    // Free each result buffer once, unless it is an input or a constant
    // (MLIR marks globals' allocated pointer 0xdeadbeef).
    os << "  void *seen[" << std::max<size_t>(1, results.size()) << "];\n"
       << "  int nseen = 0;\n";
    for (size_t i = 0; i < results.size(); ++i) {
      std::string r = results.size() > 1 ? "out.r" + std::to_string(i) : "out";
      os << "  {\n    void *a = (void *)" << r << ".allocated;\n"
         << "    int skip = a == 0 || a == (void *)0xdeadbeef;\n";
      for (size_t j = 0; j < inputs.size(); ++j)
        os << "    skip |= a == (void *)input" << j << ";\n";
      os << "    for (int s = 0; s < nseen; ++s)\n      skip |= a == seen[s];\n"
         << "    if (!skip) {\n      seen[nseen++] = a;\n      free(a);\n"
         << "    }\n  }\n";
    }
    os << "  (void)seen; (void)nseen;\n  return "
       << (info.gpu ? "dlasGpuLastError() ? -1 : 0" : "0") << ";\n}\n";

    // Names a generic harness can use without knowing the prefix.
    os << "\n#ifndef DLAS_NO_GENERIC_NAMES\n"
       << "/* Element sizes and a packed form of " << p
       << "_run for generic harnesses. */\n"
       << "static const int64_t dlas_input_bytes[] = {";
    SmallVector<std::string> sizes;
    auto bytes = [&](ShapedType t) {
      int64_t width = t.getElementType().isInteger(1)
                          ? 1
                          : t.getElementTypeBitWidth() / 8;
      return std::to_string(t.getNumElements() * width);
    };
    for (ShapedType t : inputs)
      sizes.push_back(bytes(t));
    os << (sizes.empty() ? "0" : llvm::join(sizes, ", "))
       << "};\nstatic const int64_t dlas_result_bytes[] = {";
    sizes.clear();
    for (ShapedType t : results)
      sizes.push_back(bytes(t));
    os << (sizes.empty() ? "0" : llvm::join(sizes, ", ")) << "};\n"
       << "#define DLAS_NUM_INPUTS " << inputs.size()
       << "\n#define DLAS_NUM_RESULTS " << results.size() << "\n"
       << "#define DLAS_INIT " << p << "_init\n"
       << "static inline int dlas_run_packed(void *const *inputs, "
          "void *const *results) {\n  return "
       << p << "_run(";
    SmallVector<std::string> packed;
    for (auto [i, t] : llvm::enumerate(inputs))
      packed.push_back("(const " + cElementType(t.getElementType()) +
                       " *)inputs[" + std::to_string(i) + "]");
    for (auto [i, t] : llvm::enumerate(results))
      packed.push_back("(" + cElementType(t.getElementType()) +
                       " *)results[" + std::to_string(i) + "]");
    os << llvm::join(packed, ", ") << ");\n}\n#endif\n";
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return llvm::Error::success();
}
