// run_golden.cu - runs the golden CUDA kernels (parameters in TVM's order:
// buffers first, then by name) (tests/golden/cuda/*.expected.cu)
// on a GPU and checks their results against host references, so the
// expectations are known to compute the right thing, not only to compile.
//
// Build (tests/cuda/run_golden.sh does this): nvcc -arch=sm_90a run_golden.cu
// ../golden/cuda/{scale,...}.expected.cu -o run_golden. Exit 0 when all pass,
// 1 on a mismatch, 77 when no GPU is present.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" __global__ void scale_kernel(float*, float*);
extern "C" __global__ void scale_grid_kernel(float*, float*, int);
extern "C" __global__ void axpy_kernel(float*, float*, float, int);
extern "C" __global__ void smem_demo_kernel(float*, float*);
extern "C" __global__ void dyn_arena_kernel(float*, float*, float*, half*);
extern "C" __global__ void block_sum_kernel(float*, float*);
extern "C" __global__ void warp_reduce_kernel(float*, float*);
extern "C" __global__ void floordiv_kernel(int*, int*, float*, long long*, int*, int);
extern "C" __global__ void control_kernel(float*, int);
extern "C" __global__ void unroll_kernel(float*, float*);
extern "C" __global__ void relu_kernel(float*, float*);
extern "C" __global__ void lb_kernel(float*);
extern "C" __global__ void cluster_kernel(float*, float*);
extern "C" __global__ void add_kernel(float*, float*, float*);
extern "C" __global__ void names_kernel(float*, int);
extern "C" __global__ void vector_kernel(float*, float*, int*);

static int failures = 0;

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);              \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

template <class T> struct Buf {
  std::vector<T> h;
  T *d = nullptr;
  explicit Buf(size_t n, T v = T()) : h(n, v) { CK(cudaMalloc(&d, n * sizeof(T))); }
  ~Buf() { cudaFree(d); }
  void up() { CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice)); }
  void down() { CK(cudaMemcpy(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost)); }
};

static void expect(bool ok, const char *what, int i, double got, double want) {
  if (!ok) {
    if (failures < 40) printf("FAIL %s[%d]: got %g want %g\n", what, i, got, want);
    failures++;
  }
}
static void near(const char *what, int i, double got, double want) {
  expect(std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want)), what, i, got, want);
}
static long long ref_fdiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static long long fmodp(long long a, long long b) { return a - ref_fdiv(a, b) * b; }
static float frand(int i) { return (float)((i * 37 % 101) - 50) / 8.0f; }
static void sync(const char *name) {
  CK(cudaGetLastError());
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    printf("FAIL %s: %s\n", name, cudaGetErrorString(e));
    exit(1);
  }
}

int main() {
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    printf("SKIP: no GPU\n");
    return 77;
  }
  {  // scale
    Buf<float> A(256), B(256);
    for (int i = 0; i < 256; i++) A.h[i] = frand(i);
    A.up();
    scale_kernel<<<1, 256>>>(A.d, B.d);
    sync("scale");
    B.down();
    for (int i = 0; i < 256; i++) near("scale", i, B.h[i], 2 * A.h[i]);
  }
  {  // scale_grid, n not a multiple of the block
    int n = 1000;
    Buf<float> A(n), B(n, -1);
    for (int i = 0; i < n; i++) A.h[i] = frand(i);
    A.up();
    B.up();
    scale_grid_kernel<<<(n + 127) / 128, 128>>>(A.d, B.d, n);
    sync("scale_grid");
    B.down();
    for (int i = 0; i < n; i++) near("scale_grid", i, B.h[i], 2 * A.h[i]);
  }
  {  // axpy with n < 256
    Buf<float> A(256), B(256);
    for (int i = 0; i < 256; i++) A.h[i] = frand(i), B.h[i] = (float)i;
    A.up();
    B.up();
    axpy_kernel<<<1, 256>>>(A.d, B.d, 3.0f, 200);
    sync("axpy");
    B.down();
    for (int i = 0; i < 256; i++) near("axpy", i, B.h[i], i < 200 ? 3 * A.h[i] + i : i);
  }
  {  // smem_demo
    Buf<float> A(128), B(128);
    for (int i = 0; i < 128; i++) A.h[i] = frand(i);
    A.up();
    smem_demo_kernel<<<1, 128>>>(A.d, B.d);
    sync("smem_demo");
    B.down();
    for (int i = 0; i < 128; i++) near("smem_demo", i, B.h[i], 2 * A.h[127 - i]);
  }
  {  // dyn_arena: 1024 bytes of dynamic shared memory
    Buf<float> A(64), B(64), C(64);
    Buf<half> H(64);
    for (int i = 0; i < 64; i++) A.h[i] = frand(i), B.h[i] = (float)i, H.h[i] = __float2half((float)(i % 8));
    A.up();
    B.up();
    H.up();
    dyn_arena_kernel<<<1, 64, 1024>>>(A.d, B.d, C.d, H.d);
    sync("dyn_arena");
    C.down();
    for (int i = 0; i < 64; i++) near("dyn_arena", i, C.h[i], A.h[i] + i + (i % 8) + 1);
  }
  {  // block_sum
    Buf<float> A(256), B(1);
    double want = 0;
    for (int i = 0; i < 256; i++) A.h[i] = frand(i), want += A.h[i];
    A.up();
    block_sum_kernel<<<1, 256>>>(A.d, B.d);
    sync("block_sum");
    B.down();
    near("block_sum", 0, B.h[0], want);
  }
  {  // warp_reduce: sum, max (+ shfl_up of lane 0 = its own tx = 0)
    Buf<float> A(32), B(2);
    double sum = 0, mx = -1e30;
    for (int i = 0; i < 32; i++) A.h[i] = frand(i * 3), sum += A.h[i], mx = std::fmax(mx, A.h[i]);
    A.up();
    warp_reduce_kernel<<<1, 32>>>(A.d, B.d);
    sync("warp_reduce");
    B.down();
    near("warp_reduce.sum", 0, B.h[0], sum);
    near("warp_reduce.max", 1, B.h[1], mx);
  }
  {  // floordiv: exact floor semantics on negatives
    int k = -5;
    Buf<int> A(256), M(256), D(256);
    Buf<long long> L(256);
    Buf<float> F(256);
    for (int i = 0; i < 256; i++) D.h[i] = i - 128, L.h[i] = i - 128, F.h[i] = (float)(i - 128) / 4.0f;
    D.up();
    L.up();
    F.up();
    floordiv_kernel<<<1, 256>>>(A.d, D.d, F.d, L.d, M.d, k);
    sync("floordiv");
    A.down();
    M.down();
    D.down();
    L.down();
    F.down();
    for (int t = 0; t < 256; t++) {
      long long a = t - 128, d = t - 128, l = t - 128;
      float f = (float)(t - 128) / 4.0f;
      expect(A.h[t] == ref_fdiv(a, 7) * 1000 + fmodp(a, 7), "floordiv.A", t, A.h[t], (double)(ref_fdiv(a, 7) * 1000 + fmodp(a, 7)));
      expect(M.h[t] == t / 32 * 1000 + t % 32, "floordiv.M", t, M.h[t], t / 32 * 1000 + t % 32);
      long long dw = ref_fdiv(d, k) * 1000000 + (d / k) * 1000 + d % k;
      expect(D.h[t] == dw, "floordiv.D", t, D.h[t], (double)dw);
      long long lw = ref_fdiv(t - 100, -3) * 1000 + fmodp(l, 5);
      expect(L.h[t] == lw, "floordiv.L", t, (double)L.h[t], (double)lw);
      near("floordiv.F", t, F.h[t], std::floor(f / 2.0f) + (f - std::floor(f / 3.0f) * 3.0f));
    }
  }
  {  // control: while/break/continue, for with if/elif/else
    Buf<float> A(64);
    for (int i = 0; i < 64; i++) A.h[i] = (i % 5 == 0) ? -1.0f : (float)i * 0.25f;
    A.h[40] = 200.0f;
    std::vector<float> ref = A.h;
    int n = 20;
    for (int i = 0; i < 64;) {
      if (i == n) break;
      i++;
      if (i % 2 == 1) continue;
      ref[i] += 1.0f;
    }
    for (int j = 0; j < 64; j++) {
      if (ref[j] > 100.0f) break;
      if (ref[j] < 0.0f) continue;
      ref[j] = std::fmax(ref[j], 1.0f);
    }
    A.up();
    control_kernel<<<1, 1>>>(A.d, n);
    sync("control");
    A.down();
    for (int i = 0; i < 64; i++) near("control", i, A.h[i], ref[i]);
  }
  {  // unroll
    Buf<float> A(1024), B(1024, -7);
    for (int i = 0; i < 1024; i++) A.h[i] = frand(i);
    A.up();
    B.up();
    unroll_kernel<<<1, 32>>>(A.d, B.d);
    sync("unroll");
    B.down();
    for (int j = 0; j < 4; j++)
      for (int t = 0; t < 32; t++) {
        double s = 0;
        for (int kk = 0; kk < 32; kk += 4) s += A.h[(kk + j) * 32 + t];
        near("unroll", j * 32 + t, B.h[j * 32 + t], s);
      }
  }
  {  // func_call
    Buf<float> A(256), B(256);
    for (int i = 0; i < 256; i++) A.h[i] = frand(i);
    A.up();
    relu_kernel<<<1, 256>>>(A.d, B.d);
    sync("relu");
    B.down();
    for (int i = 0; i < 256; i++) near("relu", i, B.h[i], std::fmax(A.h[i], 0) + std::fmax(A.h[255 - i], 0));
  }
  {  // launch bounds (256, 2) with a 2-D block
    Buf<float> A(1024, 5);
    A.up();
    lb_kernel<<<4, dim3(16, 16)>>>(A.d);
    sync("lb");
    A.down();
    for (int i = 0; i < 1024; i++) near("lb", i, A.h[i], 0);
  }
  {  // cluster of 2 CTAs: mbarriers, elect.sync, cluster barriers
    Buf<float> A(256), B(256);
    for (int i = 0; i < 256; i++) A.h[i] = frand(i);
    A.up();
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(2);
    cfg.blockDim = dim3(128);
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = 2;
    at[0].val.clusterDim.y = 1;
    at[0].val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, cluster_kernel, A.d, B.d));
    sync("cluster");
    B.down();
    for (int i = 0; i < 256; i++) near("cluster", i, B.h[i], A.h[i] + (i / 128) % 2);
  }
  {  // module: add + names
    Buf<float> A(128), B(128), C(128);
    for (int i = 0; i < 128; i++) A.h[i] = frand(i), B.h[i] = (float)i;
    A.up();
    B.up();
    add_kernel<<<1, 128>>>(A.d, B.d, C.d);
    names_kernel<<<1, 128>>>(A.d, 10);
    sync("module");
    C.down();
    A.down();
    for (int i = 0; i < 128; i++) {
      near("add", i, C.h[i], frand(i) + i);
      near("names", i, A.h[i], (float)(i + 10 + 1) + 1.0f);
    }
  }
  {  // vector: lane-wise float4/int4 arithmetic and casts
    Buf<float> A(256), B(256);
    Buf<int> I(128);
    for (int i = 0; i < 256; i++) A.h[i] = frand(i);
    for (int i = 0; i < 128; i++) I.h[i] = 3 * i - 100;
    A.up();
    I.up();
    vector_kernel<<<1, 64>>>(A.d, B.d, I.d);
    sync("vector");
    B.down();
    I.down();
    for (int i = 0; i < 256; i++) near("vector.B", i, B.h[i], i < 128 ? (double)(4 * i - 100) : 3.0 * A.h[i]);
    for (int i = 0; i < 128; i++) expect(I.h[i] == 4 * i - 100, "vector.I", i, I.h[i], 4 * i - 100);
  }
  printf("run_golden: %s (%d failures)\n", failures ? "FAILED" : "ok", failures);
  return failures ? 1 : 0;
}
