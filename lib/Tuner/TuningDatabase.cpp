//===- TuningDatabase.cpp - measured kernel parameters, kept --------------===//
#include "DLAS/Tuner/TuningDatabase.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::dlas;
using llvm::StringRef;

std::string dlas::formatValue(const TuningValue &value) {
  if (const auto *n = std::get_if<int64_t>(&value))
    return std::to_string(*n);
  return std::get<std::string>(value);
}

llvm::json::Value dlas::toJSONValue(const TuningValue &value) {
  if (const auto *n = std::get_if<int64_t>(&value))
    return *n;
  return std::get<std::string>(value);
}

std::string dlas::formatParams(const TuningParams &params) {
  std::string text;
  for (const auto &[name, value] : params)
    text += (text.empty() ? "" : " ") + name + "=" + formatValue(value);
  return text;
}

const KernelRecord::Result *KernelRecord::best() const {
  const Result *best = nullptr;
  for (const Result &r : results)
    if (std::isfinite(r.ms) && (!best || r.ms < best->ms))
      best = &r;
  return best;
}

bool KernelRecord::tried(const TuningParams &params) const {
  for (const Result &r : results)
    if (r.params == params)
      return true;
  return false;
}

KernelRecord *TuningDatabase::find(StringRef target, StringRef section,
                                   StringRef key, int64_t threads) {
  for (KernelRecord &k : kernels)
    if (k.target == target && k.section == section && k.key == key &&
        k.threads == threads)
      return &k;
  return nullptr;
}

KernelRecord &TuningDatabase::getOrCreate(StringRef target, StringRef section,
                                          StringRef key, int64_t threads) {
  if (KernelRecord *k = find(target, section, key, threads))
    return *k;
  KernelRecord record;
  record.target = target.str();
  record.section = section.str();
  record.key = key.str();
  record.threads = threads;
  kernels.push_back(std::move(record));
  return kernels.back();
}

namespace {
/// Reads one parameter dictionary; `where` names it for errors.
llvm::Expected<TuningParams> readParams(const llvm::json::Value *value,
                                        const std::string &where) {
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object)
    return llvm::createStringError(where + ": 'params' must be an object");
  TuningParams params;
  for (const auto &[name, v] : *object) {
    if (std::optional<StringRef> text = v.getAsString();
        text && !text->empty()) {
      params[name.str()] = text->str();
      continue;
    }
    std::optional<int64_t> n = v.getAsInteger();
    if (!n || *n < 1)
      return llvm::createStringError(where + ": parameter '" + name.str() +
                                     "' must be a positive integer or a name");
    params[name.str()] = *n;
  }
  return params;
}

/// A non-negative finite time in milliseconds, or an error naming `what`.
llvm::Expected<double> readMs(const llvm::json::Value *value,
                              const std::string &what) {
  std::optional<double> ms = value ? value->getAsNumber() : std::nullopt;
  if (!ms || !std::isfinite(*ms) || *ms < 0)
    return llvm::createStringError(what +
                                   " must be a non-negative number of ms");
  return *ms;
}

llvm::Expected<KernelRecord> readRecord(const llvm::json::Value &value,
                                        size_t index) {
  std::string where = "kernel #" + std::to_string(index);
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return llvm::createStringError(where + " is not an object");
  KernelRecord record;
  for (auto [field, slot] :
       {std::pair<StringRef, std::string *>{"target", &record.target},
        {"section", &record.section},
        {"key", &record.key}}) {
    std::optional<StringRef> text = object->getString(field);
    if (!text || text->empty())
      return llvm::createStringError(where + ": '" + field.str() +
                                     "' must be a non-empty string");
    *slot = text->str();
  }
  where += " ('" + record.key + "')";
  if (const llvm::json::Value *t = object->get("threads")) {
    std::optional<int64_t> threads = t->getAsInteger();
    if (!threads || *threads < 1)
      return llvm::createStringError(where +
                                     ": 'threads' must be a positive integer");
    record.threads = *threads;
  }
  if (const llvm::json::Value *d = object->get("default_ms")) {
    llvm::Expected<double> ms = readMs(d, where + ": 'default_ms'");
    if (!ms)
      return ms.takeError();
    record.defaultMs = *ms;
  }
  const llvm::json::Array *results = object->getArray("results");
  if (!results)
    return llvm::createStringError(where + ": 'results' must be an array");
  for (const llvm::json::Value &r : *results) {
    const llvm::json::Object *result = r.getAsObject();
    std::string at = where + " result #" +
                     std::to_string(record.results.size());
    if (!result)
      return llvm::createStringError(at + " is not an object");
    llvm::Expected<TuningParams> params = readParams(result->get("params"), at);
    if (!params)
      return params.takeError();
    // A candidate that failed to build is kept as null, so that it is not
    // tried again.
    double ms = INFINITY;
    if (const llvm::json::Value *t = result->get("ms"); t && !t->getAsNull()) {
      llvm::Expected<double> read = readMs(t, at + ": 'ms'");
      if (!read)
        return read.takeError();
      ms = *read;
    }
    record.results.push_back({std::move(*params), ms});
  }
  return record;
}
} // namespace

llvm::Expected<TuningDatabase> TuningDatabase::load(StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError("tuning database '" + path + "': " + why);
  };
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail(buffer.getError().message());
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return fail("not JSON: " + llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return fail("the top level must be an object");
  std::optional<int64_t> version = root->getInteger("dlas_tuning_db");
  if (version != 1)
    return fail("'dlas_tuning_db' must be 1 (the format version)");
  const llvm::json::Array *kernels = root->getArray("kernels");
  if (!kernels)
    return fail("'kernels' must be an array");
  TuningDatabase db;
  for (const llvm::json::Value &k : *kernels) {
    llvm::Expected<KernelRecord> record = readRecord(k, db.kernels.size());
    if (!record)
      return fail(llvm::toString(record.takeError()));
    if (db.find(record->target, record->section, record->key, record->threads))
      return fail("kernel '" + record->target + "/" + record->section + "/" +
                  record->key + "' appears twice (" +
                  std::to_string(record->threads) + " thread(s))");
    db.kernels.push_back(std::move(*record));
  }
  return db;
}

llvm::Error TuningDatabase::save(StringRef path) const {
  std::string temporary = (path + ".tmp").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temporary, ec);
    if (ec)
      return llvm::createStringError("cannot write '" + temporary +
                                     "': " + ec.message());
    llvm::json::OStream json(os, 1);
    json.object([&] {
      json.attribute("dlas_tuning_db", 1);
      json.attributeArray("kernels", [&] {
        for (const KernelRecord &k : kernels)
          json.object([&] {
            json.attribute("target", k.target);
            json.attribute("section", k.section);
            json.attribute("key", k.key);
            json.attribute("threads", k.threads);
            if (k.defaultMs)
              json.attribute("default_ms", *k.defaultMs);
            json.attributeArray("results", [&] {
              for (const KernelRecord::Result &r : k.results)
                json.object([&] {
                  json.attributeObject("params", [&] {
                    for (const auto &[name, value] : r.params)
                      json.attribute(name, toJSONValue(value));
                  });
                  if (std::isfinite(r.ms))
                    json.attribute("ms", r.ms);
                  else
                    json.attribute("ms", nullptr);
                });
            });
          });
      });
    });
    os << "\n";
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path))
    return llvm::createStringError("cannot write '" + path.str() +
                                   "': " + ec.message());
  return llvm::Error::success();
}
