//===- TuningFile.cpp - per-shape microkernel parameters ------------------===//
//
// Reads a tuning file (see TuningFile.h) with llvm::json and turns its
// entries into dictionary attributes, the shape of the per-op overrides,
// so that the passes apply file and attribute through the same code.
//
//===----------------------------------------------------------------------===//
#include "DLAS/Codegen/TuningFile.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::dlas;

namespace {

/// Version of the format this build reads.
constexpr int64_t kTuningFormatVersion = 1;

/// Converts one entry object to a dictionary, checking it against `schema`;
/// on failure `why` says what is wrong.
DictionaryAttr entryToDictionary(Builder &b, const llvm::json::Object &entry,
                                 const TuningSchema &schema, std::string &why) {
  SmallVector<NamedAttribute> attrs;
  for (const auto &[jsonKey, value] : entry) {
    StringRef key = jsonKey;
    if (llvm::is_contained(schema.integerKeys, key)) {
      std::optional<int64_t> n = value.getAsInteger();
      if (!n || *n < 1) {
        why = "entry '" + key.str() + "' must be a positive integer";
        return nullptr;
      }
      attrs.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(*n)));
      continue;
    }
    if (llvm::is_contained(schema.boolKeys, key)) {
      std::optional<bool> flag = value.getAsBoolean();
      if (!flag) {
        why = "entry '" + key.str() + "' must be true or false";
        return nullptr;
      }
      attrs.push_back(b.getNamedAttr(key, b.getBoolAttr(*flag)));
      continue;
    }
    const TuningChoice *choice = llvm::find_if(
        schema.choiceKeys, [&](const TuningChoice &c) { return c.key == key; });
    if (choice != schema.choiceKeys.end()) {
      std::optional<StringRef> name = value.getAsString();
      if (!name || !llvm::is_contained(choice->values, *name)) {
        why = "entry '" + key.str() + "' must be one of " +
              llvm::join(choice->values, ", ");
        return nullptr;
      }
      attrs.push_back(b.getNamedAttr(key, b.getStringAttr(*name)));
      continue;
    }
    std::string expected;
    llvm::raw_string_ostream os(expected);
    SmallVector<StringRef> known(schema.integerKeys);
    llvm::append_range(known, schema.boolKeys);
    for (const TuningChoice &c : schema.choiceKeys)
      known.push_back(c.key);
    llvm::interleaveComma(known, os);
    why = "unknown entry '" + key.str() + "' (expected " + expected + ")";
    return nullptr;
  }
  return b.getDictionaryAttr(attrs);
}

} // namespace

FailureOr<std::shared_ptr<const TuningTable>>
TuningTable::load(MLIRContext *context, StringRef path,
                  ArrayRef<TuningSchema> schemas) {
  auto fail = [&](const Twine &message) {
    // The file is the location: "<path>:0:0: error: tuning file ...".
    emitError(FileLineColLoc::get(context, path, 0, 0))
        << "tuning file '" << path << "': " << message;
    return failure();
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read it: " + buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not valid JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return fail("the top level must be an object");

  auto table = std::make_shared<TuningTable>();
  Builder b(context);
  for (const auto &[jsonSection, value] : *root) {
    StringRef section = jsonSection;
    if (section == "dlas_tuning") {
      if (value.getAsInteger() != kTuningFormatVersion)
        return fail("'dlas_tuning' must be the format version " +
                    Twine(kTuningFormatVersion));
      continue;
    }
    const TuningSchema *schema = llvm::find_if(
        schemas, [&](const TuningSchema &s) { return s.section == section; });
    if (schema == schemas.end()) {
      std::string known;
      llvm::raw_string_ostream os(known);
      llvm::interleaveComma(schemas, os,
                            [&](const TuningSchema &s) { os << s.section; });
      return fail("unknown section '" + section + "' (expected dlas_tuning, " +
                  known + ")");
    }
    const llvm::json::Object *entries = value.getAsObject();
    if (!entries)
      return fail("section '" + section + "' must be an object of shape keys");
    llvm::StringMap<DictionaryAttr> &slot = table->sections[section];
    for (const auto &[key, entry] : *entries) {
      const llvm::json::Object *fields = entry.getAsObject();
      if (!fields)
        return fail("'" + section + "' entry '" + StringRef(key) +
                    "' must be an object");
      std::string why;
      DictionaryAttr dict = entryToDictionary(b, *fields, *schema, why);
      if (!dict)
        return fail("'" + section + "' entry '" + StringRef(key) + "': " + why);
      slot[key] = dict;
    }
  }
  return std::shared_ptr<const TuningTable>(std::move(table));
}

DictionaryAttr TuningTable::lookup(StringRef section, StringRef key,
                                   StringRef target) const {
  auto found = sections.find(section);
  if (found == sections.end())
    return nullptr;
  const llvm::StringMap<DictionaryAttr> &entries = found->second;
  // A target's own entries first: tiles tuned for 32 registers do not
  // carry over to 16.
  SmallVector<std::string> candidates;
  if (!target.empty())
    candidates.push_back((target + "/" + key).str());
  candidates.push_back(key.str());
  if (!target.empty())
    candidates.push_back((target + "/*").str());
  candidates.push_back("*");
  for (const std::string &candidate : candidates)
    if (auto entry = entries.find(candidate); entry != entries.end())
      return entry->second;
  return nullptr;
}

ArrayRef<TuningSchema> mlir::dlas::tuningSchemas() {
  static const StringRef gemmIntegers[] = {"m0", "vectors", "kc", "mc"};
  static const StringRef gemmBools[] = {"pack_b"};
  static const StringRef rowsAndVectors[] = {"rows", "vectors"};
  static const StringRef blockedTiles[] = {"rows", "vectors", "lines"};
  static const StringRef gspcIntegers[] = {"ti", "to"};
  static const StringRef threadSplits[] = {"tiles", "rows"};
  static const TuningChoice gemmChoices[] = {{"split", threadSplits}};
  static const StringRef convAlgorithms[] = {"direct", "gemm", "im2col", "flat",
                                             "winograd"};
  static const TuningChoice convChoices[] = {{"algorithm", convAlgorithms}};
  static const StringRef convIntegers[] = {"winograd_tile"};
  static const TuningSchema schemas[] = {
      {"gemm", gemmIntegers, gemmBools, gemmChoices},
      {"depthwise", rowsAndVectors, {}},
      {"blocked_conv", blockedTiles, {}},
      {"gspc", gspcIntegers, {}},
      {"conv_algorithm", convIntegers, {}, convChoices},
  };
  return schemas;
}

LogicalResult
mlir::dlas::loadTuningFile(MLIRContext *context, StringRef path,
                           std::shared_ptr<const TuningTable> &table) {
  if (path.empty())
    return success();
  FailureOr<std::shared_ptr<const TuningTable>> loaded =
      TuningTable::load(context, path, tuningSchemas());
  if (failed(loaded))
    return failure();
  table = *loaded;
  return success();
}

LogicalResult mlir::dlas::applyIntegerOverrides(
    Operation *op, StringRef attrName, Attribute attr,
    ArrayRef<std::pair<StringRef, int64_t *>> slots) {
  if (!attr)
    return success();
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return op->emitError() << "'" << attrName
                           << "' must be a dictionary of integers";
  for (NamedAttribute entry : dict) {
    const auto *slot = llvm::find_if(slots, [&](const auto &s) {
      return s.first == entry.getName().getValue();
    });
    if (slot == slots.end()) {
      InFlightDiagnostic diag = op->emitError()
                                << "'" << attrName << "' has unknown key '"
                                << entry.getName().getValue() << "' (expected ";
      llvm::interleaveComma(slots, diag,
                            [&](const auto &s) { diag << s.first; });
      return diag << ")";
    }
    auto value = dyn_cast<IntegerAttr>(entry.getValue());
    if (!value || value.getInt() <= 0)
      return op->emitError() << "'" << attrName << "' entry '"
                             << entry.getName().getValue()
                             << "' must be a positive integer";
    *slot->second = value.getInt();
  }
  return success();
}
