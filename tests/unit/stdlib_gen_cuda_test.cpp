// `seam stdlib gen` on the real CUDA runtime header, where it is installed.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "tests/unit/stdlib_gen_support.hpp"

namespace seam::test {
namespace {

constexpr const char* kCudaHeader = "/usr/local/cuda/include/cuda_runtime_api.h";

TEST(StdlibGenCuda, MemcpyFunctionsHaveNamedTypedArgumentsAndPassTheChecker) {
  struct stat st {};
  if (::stat(kCudaHeader, &st) != 0) GTEST_SKIP() << kCudaHeader << " is not installed";
  stdlib_gen::GenResult result = gen(kCudaHeader, {"cudaMemcpy*"}, "cudart=libcudart.so*");
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok) << (result.errors.empty() ? "" : result.errors[0]);
  const std::string& text = result.module_text;
  for (const char* expected : {
           "library cudart = \"libcudart.so*\"\n",
           "enum cudaMemcpyKind (\n"
           "    cudaMemcpyHostToHost = 0,\n"
           "    cudaMemcpyHostToDevice = 1,\n"
           "    cudaMemcpyDeviceToHost = 2,\n",
           "enum cudaError (\n    cudaSuccess = 0,\n",
           "span memcpy = cudart:cudaMemcpy\n"
           "    (dst: ptr,              # Destination memory address\n"
           "     src: ptr,              # Source memory address\n"
           "     count: bytes,          # Size in bytes to copy\n"
           "     kind: cudaMemcpyKind)  # Type of transfer\n"
           "    -> (ret: cudaError)\n",
           "span memcpy_async = cudart:cudaMemcpyAsync\n"
           "    (dst: ptr,              # Destination memory address\n",
           "     count: bytes,          # Size in bytes to copy\n"
           "     kind: cudaMemcpyKind,  # Type of transfer\n"
           "     stream: ptr)           # Stream identifier\n"
           "    -> (ret: cudaError)\n",
           "span memcpy_2d_async = cudart:cudaMemcpy2DAsync\n",
       })
    EXPECT_NE(text.find(expected), std::string::npos) << "missing:\n" << expected << "\nin:\n" << text;
  EXPECT_EQ(text.find("cudaMalloc"), std::string::npos);
  EXPECT_EQ(check_output(text), "");
  EXPECT_EQ(result.enums["cudaMemcpyKind"]["1"], "cudaMemcpyHostToDevice");
  EXPECT_EQ(result.enums["cudaError"]["0"], "cudaSuccess");
}

TEST(StdlibGenCuda, PerThreadStreamVariantsBecomeAlternatives) {
  struct stat st {};
  if (::stat(kCudaHeader, &st) != 0) GTEST_SKIP() << kCudaHeader << " is not installed";
  stdlib_gen::GenOptions options;
  options.header = kCudaHeader;
  options.library_alias = "cudart";
  options.library_pattern = "libcudart.so*";
  options.function_globs = {"cudaMemcpy", "cudaMemcpyAsync", "cudaMalloc"};
  options.variant_defines = {"CUDA_API_PER_THREAD_DEFAULT_STREAM"};
  stdlib_gen::GenResult result = stdlib_gen::generate(options);
  ASSERT_EQ(result.status, stdlib_gen::GenStatus::Ok) << (result.errors.empty() ? "" : result.errors[0]);
  const std::string& text = result.module_text;
  EXPECT_NE(text.find("span memcpy = cudart:cudaMemcpy | cudart:cudaMemcpy_ptds\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("span memcpy_async = cudart:cudaMemcpyAsync | cudart:cudaMemcpyAsync_ptsz\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("span malloc = cudart:cudaMalloc\n"), std::string::npos) << text;
  EXPECT_EQ(check_output(text), "");
}

}  // namespace
}  // namespace seam::test
