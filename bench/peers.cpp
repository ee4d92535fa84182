// Peer timings for the DLAS benchmark harness: oneDNN convolutions and
// matmuls (C++ API, format_tag::any, reorders outside the timed loop) and
// OpenBLAS sgemm. Reads one case per line on stdin:
//   conv N C H W F KH KW SH SW PT PL PB PR DH DW G
//   convbf16 N C H W F KH KW SH SW PT PL PB PR DH DW G (bf16 source and
//            weights, f32 destination)
//   conv8 N C H W F KH KW SH SW PT PL PB PR DH DW G   (int8: u8 source, s8
//         weights, f32 destination with per-channel output scales)
//   convpool N C H W F K S P PK PS PP   (conv + bias + ReLU, max pool)
//   gemm M N K
//   peak                 (the measured fp32 FMA peak, GFLOP/s)
// and prints, per case, "<library> <median_ms> <min_ms> <max_ms>" lines.
// Threads: OMP_NUM_THREADS (oneDNN), --threads N (OpenBLAS).
#include <dnnl.hpp>

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern "C" void openblas_set_num_threads(int);

namespace {

struct Stats {
  double median, min, max;
};

Stats timeIt(const std::function<void()> &fn, int warmup, int repeat) {
  for (int i = 0; i < warmup; ++i)
    fn();
  std::vector<double> times;
  for (int i = 0; i < repeat; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
  }
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times.front(), times.back()};
}

void fill(std::vector<float> &v) {
  unsigned s = 1;
  for (float &x : v) {
    s = s * 1103515245u + 12345u;
    x = ((s >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
}

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

/// `user`'s data reordered into a new memory of the primitive's `desc`
/// (once, outside the timed loop).
dnnl::memory reorderedTo(dnnl::engine &eng, dnnl::stream &s,
                         dnnl::memory &user, const dnnl::memory::desc &desc) {
  auto mem = dnnl::memory(desc, eng);
  dnnl::reorder(user, mem).execute(s, user, mem);
  return mem;
}

/// A `conv`/`conv8` case: N C H W F KH KW SH SW PT PL PB PR DH DW G.
struct ConvCase {
  long n, c, h, w, f, kh, kw, g;
  dnnl::memory::dims src, dst, wei, strides, dilations, padL, padR;

  explicit ConvCase(const std::vector<long> &a)
      : n(a[0]), c(a[1]), h(a[2]), w(a[3]), f(a[4]), kh(a[5]), kw(a[6]),
        g(a[15]) {
    long sh = a[7], sw = a[8], pt = a[9], pl = a[10], pb = a[11], pr = a[12],
         dh = a[13], dw = a[14];
    long oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
    long ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
    src = {n, c, h, w};
    dst = {n, f, oh, ow};
    wei = g == 1 ? dnnl::memory::dims{f, c, kh, kw}
                 : dnnl::memory::dims{g, f / g, c / g, kh, kw};
    strides = {sh, sw};
    dilations = {dh - 1, dw - 1};
    padL = {pt, pl};
    padR = {pb, pr};
  }

  dnnl::convolution_forward::desc desc(dt source, dt weights, dt dest) const {
    return dnnl::convolution_forward::desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
        dnnl::memory::desc(src, source, tag::any),
        dnnl::memory::desc(wei, weights, tag::any),
        dnnl::memory::desc(dst, dest, tag::any), strides, dilations, padL,
        padR);
  }

  /// The primitive on `srcData` and `weiData` (plain NCHW and OIHW/GOIHW
  /// layouts, reordered to the primitive's once, outside the timed loop).
  Stats time(dnnl::engine &eng, dnnl::stream &s,
             const dnnl::convolution_forward::primitive_desc &pd, dt source,
             void *srcData, dt weights, void *weiData, int warmup,
             int repeat) const {
    auto srcUser = dnnl::memory({src, source, tag::nchw}, eng, srcData);
    auto weiUser = dnnl::memory(
        {wei, weights, g == 1 ? tag::oihw : tag::goihw}, eng, weiData);
    auto srcMem = reorderedTo(eng, s, srcUser, pd.src_desc());
    auto weiMem = reorderedTo(eng, s, weiUser, pd.weights_desc());
    auto dstMem = dnnl::memory(pd.dst_desc(), eng);
    s.wait();
    auto conv = dnnl::convolution_forward(pd);
    return timeIt(
        [&] {
          conv.execute(s, {{DNNL_ARG_SRC, srcMem},
                           {DNNL_ARG_WEIGHTS, weiMem},
                           {DNNL_ARG_DST, dstMem}});
          s.wait();
        },
        warmup, repeat);
  }
};

Stats onednnConv(dnnl::engine &eng, dnnl::stream &s, const std::vector<long> &a,
                 int warmup, int repeat) {
  ConvCase cv(a);
  auto pd = dnnl::convolution_forward::primitive_desc(
      cv.desc(dt::f32, dt::f32, dt::f32), eng);
  std::vector<float> srcData(cv.n * cv.c * cv.h * cv.w),
      weiData(cv.f * (cv.c / cv.g) * cv.kh * cv.kw);
  fill(srcData);
  fill(weiData);
  return cv.time(eng, s, pd, dt::f32, srcData.data(), dt::f32, weiData.data(),
                 warmup, repeat);
}

/// An int8 convolution as a quantized network runs it: u8 activations, s8
/// weights, i32 accumulation, per-output-channel scales into an f32
/// destination (oneDNN 2.x output scales).
Stats onednnConvInt8(dnnl::engine &eng, dnnl::stream &s,
                     const std::vector<long> &a, int warmup, int repeat) {
  ConvCase cv(a);
  dnnl::primitive_attr attr;
  attr.set_output_scales(/*mask: per output channel*/ 1 << 1,
                         std::vector<float>(cv.f, 1.0f / 4096));
  auto pd = dnnl::convolution_forward::primitive_desc(
      cv.desc(dt::u8, dt::s8, dt::f32), attr, eng);
  std::vector<uint8_t> srcData(cv.n * cv.c * cv.h * cv.w);
  std::vector<int8_t> weiData(cv.f * (cv.c / cv.g) * cv.kh * cv.kw);
  unsigned seed = 1;
  for (uint8_t &x : srcData)
    x = static_cast<uint8_t>((seed = seed * 1103515245u + 12345u) >> 24);
  for (int8_t &x : weiData)
    x = static_cast<int8_t>((seed = seed * 1103515245u + 12345u) >> 24);
  return cv.time(eng, s, pd, dt::u8, srcData.data(), dt::s8, weiData.data(),
                 warmup, repeat);
}

/// A bf16 convolution as a bf16 network runs it: bf16 source and weights,
/// f32 accumulation into an f32 destination (AMX-BF16 or AVX512-BF16 where
/// the host has them: ONEDNN_MAX_CPU_ISA caps the choice).
Stats onednnConvBF16(dnnl::engine &eng, dnnl::stream &s,
                     const std::vector<long> &a, int warmup, int repeat) {
  ConvCase cv(a);
  auto pd = dnnl::convolution_forward::primitive_desc(
      cv.desc(dt::bf16, dt::bf16, dt::f32), eng);
  std::vector<float> src(cv.n * cv.c * cv.h * cv.w),
      wei(cv.f * (cv.c / cv.g) * cv.kh * cv.kw);
  fill(src);
  fill(wei);
  // bf16 bit patterns: the top halves of the floats.
  auto halves = [](const std::vector<float> &v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &v[i], 4);
      h[i] = static_cast<uint16_t>(bits >> 16);
    }
    return h;
  };
  std::vector<uint16_t> srcData = halves(src), weiData = halves(wei);
  return cv.time(eng, s, pd, dt::bf16, srcData.data(), dt::bf16, weiData.data(),
                 warmup, repeat);
}

/// conv (bias, ReLU post-op) then a max-pooling primitive on its output
/// (oneDNN's best block: format_tag::any everywhere, the pool reading the
/// convolution's blocked output), timed together; also the convolution
/// alone. a = N C H W F K S P PK PS PP.
std::pair<Stats, Stats> onednnConvReluPool(dnnl::engine &eng, dnnl::stream &s,
                                           const std::vector<long> &a,
                                           int warmup, int repeat) {
  long n = a[0], c = a[1], h = a[2], w = a[3], f = a[4], k = a[5], st = a[6],
       p = a[7], pk = a[8], ps = a[9], pp = a[10];
  long oh = (h + 2 * p - k) / st + 1, ow = (w + 2 * p - k) / st + 1;
  long ph = (oh + 2 * pp - pk) / ps + 1, pw = (ow + 2 * pp - pk) / ps + 1;
  dnnl::memory::dims src{n, c, h, w}, wei{f, c, k, k}, bias{f},
      dst{n, f, oh, ow}, pooled{n, f, ph, pw};
  auto desc = dnnl::convolution_forward::desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
      dnnl::memory::desc(src, dt::f32, tag::any),
      dnnl::memory::desc(wei, dt::f32, tag::any),
      dnnl::memory::desc(bias, dt::f32, tag::x),
      dnnl::memory::desc(dst, dt::f32, tag::any), {st, st}, {p, p}, {p, p});
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  auto pd = dnnl::convolution_forward::primitive_desc(desc, attr, eng);
  auto poolDesc = dnnl::pooling_forward::desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
      pd.dst_desc(), dnnl::memory::desc(pooled, dt::f32, tag::any), {ps, ps},
      {pk, pk}, {pp, pp}, {pp, pp});
  auto poolPd = dnnl::pooling_forward::primitive_desc(poolDesc, eng);
  std::vector<float> srcData(n * c * h * w), weiData(f * c * k * k), biasData(f);
  fill(srcData);
  fill(weiData);
  fill(biasData);
  auto srcUser = dnnl::memory({src, dt::f32, tag::nchw}, eng, srcData.data());
  auto weiUser = dnnl::memory({wei, dt::f32, tag::oihw}, eng, weiData.data());
  auto biasMem = dnnl::memory({bias, dt::f32, tag::x}, eng, biasData.data());
  auto srcMem = reorderedTo(eng, s, srcUser, pd.src_desc());
  auto weiMem = reorderedTo(eng, s, weiUser, pd.weights_desc());
  auto dstMem = dnnl::memory(pd.dst_desc(), eng);
  auto poolMem = dnnl::memory(poolPd.dst_desc(), eng);
  s.wait();
  auto conv = dnnl::convolution_forward(pd);
  auto pool = dnnl::pooling_forward(poolPd);
  auto runConv = [&] {
    conv.execute(s, {{DNNL_ARG_SRC, srcMem},
                     {DNNL_ARG_WEIGHTS, weiMem},
                     {DNNL_ARG_BIAS, biasMem},
                     {DNNL_ARG_DST, dstMem}});
  };
  Stats block = timeIt(
      [&] {
        runConv();
        pool.execute(s, {{DNNL_ARG_SRC, dstMem}, {DNNL_ARG_DST, poolMem}});
        s.wait();
      },
      warmup, repeat);
  Stats convOnly = timeIt(
      [&] {
        runConv();
        s.wait();
      },
      warmup, repeat);
  return {block, convOnly};
}

Stats onednnMatmul(dnnl::engine &eng, dnnl::stream &s, long m, long nn, long k,
                   int warmup, int repeat) {
  auto aDesc = dnnl::memory::desc({m, k}, dt::f32, tag::ab);
  auto bDesc = dnnl::memory::desc({k, nn}, dt::f32, tag::any);
  auto cDesc = dnnl::memory::desc({m, nn}, dt::f32, tag::ab);
  auto pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(aDesc, bDesc, cDesc), eng);
  std::vector<float> aData(m * k), bData(k * nn);
  fill(aData);
  fill(bData);
  auto aMem = dnnl::memory(aDesc, eng, aData.data());
  auto bUser = dnnl::memory({{k, nn}, dt::f32, tag::ab}, eng, bData.data());
  auto bMem = dnnl::memory(pd.weights_desc(), eng);
  dnnl::reorder(bUser, bMem).execute(s, bUser, bMem);
  auto cMem = dnnl::memory(cDesc, eng);
  s.wait();
  auto mm = dnnl::matmul(pd);
  return timeIt(
      [&] {
        mm.execute(s, {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, bMem}, {DNNL_ARG_DST, cMem}});
        s.wait();
      },
      warmup, repeat);
}

Stats openblasSgemm(long m, long n, long k, int warmup, int repeat) {
  std::vector<float> a(m * k), b(k * n), c(m * n);
  fill(a);
  fill(b);
  return timeIt(
      [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f,
                    a.data(), k, b.data(), n, 0.0f, c.data(), n);
      },
      warmup, repeat);
}

// The fp32 FMA peak of this machine at `Width` bits: 12 independent FMA
// chains per thread (enough to cover latency x throughput), on `threads`
// threads. Built per width with a target attribute, so that the harness
// builds on AVX2-only hosts and the AVX-512 variant runs only where the CPU
// has it.
template <typename Vec, Vec (*Set1)(float), Vec (*Fma)(Vec, Vec, Vec),
          Vec (*Add)(Vec, Vec), int Lanes>
__attribute__((always_inline)) inline double fmaPeakLoop(long iterations) {
  // Named accumulators so that they stay in registers.
  Vec a0 = Set1(0.0f), a1 = Set1(0.1f), a2 = Set1(0.2f), a3 = Set1(0.3f),
      a4 = Set1(0.4f), a5 = Set1(0.5f), a6 = Set1(0.6f), a7 = Set1(0.7f),
      a8 = Set1(0.8f), a9 = Set1(0.9f), a10 = Set1(1.0f), a11 = Set1(1.1f);
  const Vec m = Set1(0.9999f), c = Set1(0.0001f);
  for (long it = 0; it < iterations; ++it) {
    a0 = Fma(a0, m, c); a1 = Fma(a1, m, c); a2 = Fma(a2, m, c);
    a3 = Fma(a3, m, c); a4 = Fma(a4, m, c); a5 = Fma(a5, m, c);
    a6 = Fma(a6, m, c); a7 = Fma(a7, m, c); a8 = Fma(a8, m, c);
    a9 = Fma(a9, m, c); a10 = Fma(a10, m, c); a11 = Fma(a11, m, c);
  }
  Vec sum = Add(Add(Add(a0, a1), Add(a2, a3)), Add(Add(a4, a5), Add(a6, a7)));
  sum = Add(sum, Add(Add(a8, a9), Add(a10, a11)));
  alignas(64) float out[Lanes];
  std::memcpy(out, &sum, sizeof(out));
  return out[0];
}

__attribute__((target("avx2,fma"))) __m256 set1Ymm(float v) { return _mm256_set1_ps(v); }
__attribute__((target("avx2,fma"))) __m256 fmaYmm(__m256 a, __m256 b, __m256 c) { return _mm256_fmadd_ps(a, b, c); }
__attribute__((target("avx2,fma"))) __m256 addYmm(__m256 a, __m256 b) { return _mm256_add_ps(a, b); }
__attribute__((target("avx512f"))) __m512 set1Zmm(float v) { return _mm512_set1_ps(v); }
__attribute__((target("avx512f"))) __m512 fmaZmm(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
__attribute__((target("avx512f"))) __m512 addZmm(__m512 a, __m512 b) { return _mm512_add_ps(a, b); }

__attribute__((target("avx2,fma"))) double ymmPeakLoop(long iterations) {
  return fmaPeakLoop<__m256, set1Ymm, fmaYmm, addYmm, 8>(iterations);
}
__attribute__((target("avx512f"))) double zmmPeakLoop(long iterations) {
  return fmaPeakLoop<__m512, set1Zmm, fmaZmm, addZmm, 16>(iterations);
}

double fmaPeakGflops(int threads, int width) {
  const long iterations = 200000000 / 12;
  auto worker = [&] {
    volatile double keep =
        width == 512 ? zmmPeakLoop(iterations) : ymmPeakLoop(iterations);
    (void)keep;
  };
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (auto &t : pool)
    t.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return threads * iterations * 12.0 * (width / 32) * 2 / seconds / 1e9;
}

void print(const char *lib, Stats st) {
  std::printf("%s %.4f %.4f %.4f\n", lib, st.median, st.min, st.max);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  int threads = 1, warmup = 5, repeat = 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--threads"))
      threads = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat"))
      repeat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--warmup"))
      warmup = std::atoi(argv[i + 1]);
  }
  openblas_set_num_threads(threads);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream s(eng);
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string kind;
    in >> kind;
    std::vector<long> args;
    long v;
    while (in >> v)
      args.push_back(v);
    if (kind == "peak") {
      // "peak [bits]": the widest vectors the host has unless a width is
      // named (256: AVX2, to measure AVX2 code on an AVX-512 host).
      int width = __builtin_cpu_supports("avx512f") ? 512 : 256;
      if (!args.empty())
        width = static_cast<int>(args[0]);
      if (width != 256 && width != 512) {
        std::fprintf(stderr, "peers: peak width must be 256 or 512\n");
        return 1;
      }
      if (width == 512 && !__builtin_cpu_supports("avx512f")) {
        std::fprintf(stderr, "peers: this host has no AVX-512\n");
        return 1;
      }
      double best = 0;
      for (int i = 0; i < 3; ++i)
        best = std::max(best, fmaPeakGflops(threads, width));
      std::printf("peak %.1f\n", best);
      std::fflush(stdout);
    } else if (kind == "conv" && args.size() == 16) {
      print("onednn", onednnConv(eng, s, args, warmup, repeat));
    } else if (kind == "conv8" && args.size() == 16) {
      print("onednn_int8", onednnConvInt8(eng, s, args, warmup, repeat));
    } else if (kind == "convbf16" && args.size() == 16) {
      print("onednn_bf16", onednnConvBF16(eng, s, args, warmup, repeat));
    } else if (kind == "convpool" && args.size() == 11) {
      auto [block, convOnly] = onednnConvReluPool(eng, s, args, warmup, repeat);
      print("onednn", block);
      print("onednn_conv", convOnly);
    } else if (kind == "gemm" && args.size() == 3) {
      print("onednn", onednnMatmul(eng, s, args[0], args[1], args[2], warmup, repeat));
      print("openblas", openblasSgemm(args[0], args[1], args[2], warmup, repeat));
    } else if (!kind.empty()) {
      std::fprintf(stderr, "peers: cannot read case '%s'\n", line.c_str());
      return 1;
    }
  }
  return 0;
}
