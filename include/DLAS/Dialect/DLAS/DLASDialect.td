//===- DLASDialect.td - codegen attributes: targets and decisions ---------===//
//
// The `dlas` dialect holds no ops: it carries what code generation needs to
// know about the machine it compiles for (`#dlas.cpu_target`, on the module
// as `dlas.target`), so that every pass reads the target from the IR and
// none asks the host it runs on.
//
//===----------------------------------------------------------------------===//
#ifndef DLAS_DIALECT_DLAS_DLASDIALECT_TD
#define DLAS_DIALECT_DLAS_DLASDIALECT_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/DialectBase.td"

def DLAS_Dialect : Dialect {
  let name = "dlas";
  let cppNamespace = "::mlir::dlas";
  let summary = "DLAS code generation attributes: targets";
  let description = [{
    Attributes that code generation reads. A module compiled by DLAS carries
    its target as the discardable attribute `dlas.target`:

    ```mlir
    module attributes {dlas.target = #dlas.cpu_target<cpu = "znver3",
        features = "+avx,+avx2,+f16c,+fma", vector_bits = 256,
        vector_registers = 16, l1 = 32768, l2 = 524288, l3 = 33554432,
        fma_per_cycle = 2>} {
      ...
    }
    ```

    The kernel passes take their vector width, register budget and cache
    blocking from it; the JIT (`dlas-run`) and the object path
    (`dlas-compile`) create their LLVM target machine from its `cpu` and
    `features`. `host` is resolved to a concrete target only by the tools and
    by the pipeline builder, never by a pass, so that the IR printed for a
    named target is the same on every machine.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The module attribute that holds the target.
    static constexpr ::llvm::StringLiteral kTargetAttrName = "dlas.target";
  }];
}

class DLAS_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<DLAS_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def DLAS_CPUTargetAttr : DLAS_Attr<"CPUTarget", "cpu_target"> {
  let summary = "A CPU that code is generated for";
  let description = [{
    * `cpu`: the LLVM CPU name (`x86-64-v3`, `znver3`, `sapphirerapids`, ...),
      given to the LLVM target machine;
    * `features`: the code-generation-relevant ISA extensions the target has,
      as an LLVM feature string of `+name` entries in a fixed order (`+avx2`,
      `+fma`, `+avx512f`, `+avx512bf16`, `+avx512vnni`, `+avxvnni`,
      `+amx-bf16`, `+amx-int8`, ...); those it lacks are disabled explicitly
      when the target machine is created, whatever the CPU name implies;
    * `vector_bits`: the vector register width kernels use (128, 256, 512);
    * `vector_registers`: architectural vector registers (16 or 32);
    * `l1`, `l2`, `l3`: data cache bytes per core (L3: the whole cache);
    * `fma_per_cycle`: vector FMA instructions issued per cycle per core.
  }];
  let parameters = (ins
    StringRefParameter<"LLVM CPU name">:$cpu,
    StringRefParameter<"LLVM feature string of the ISA extensions">:$features,
    "int64_t":$vector_bits,
    "int64_t":$vector_registers,
    "int64_t":$l1,
    "int64_t":$l2,
    "int64_t":$l3,
    "int64_t":$fma_per_cycle
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// True when `features` lists `+name`.
    bool hasFeature(::llvm::StringRef name) const;
    /// Lanes of a vector register holding elements of `bits` bits.
    int64_t lanes(int64_t bits) const { return getVectorBits() / bits; }
    /// The LLVM feature string for a target machine: the listed features
    /// and every other code-generation-relevant one disabled.
    std::string llvmFeatureString() const;
  }];
}

#endif // DLAS_DIALECT_DLAS_DLASDIALECT_TD
