// Span and field names made from C names.
#include <gtest/gtest.h>

#include "compiler/stdlib_gen/naming.hpp"

namespace seam::stdlib_gen {
namespace {

TEST(StdlibGenNaming, SnakeCase) {
  EXPECT_EQ(snake_case("MemcpyAsync"), "memcpy_async");
  EXPECT_EQ(snake_case("cudaMemcpyAsync"), "cuda_memcpy_async");
  EXPECT_EQ(snake_case("Memcpy2DAsync"), "memcpy_2d_async");
  EXPECT_EQ(snake_case("Memcpy3DPeerAsync"), "memcpy_3d_peer_async");
  EXPECT_EQ(snake_case("Memcpy2D"), "memcpy_2d");
  EXPECT_EQ(snake_case("MemAlloc_v2"), "mem_alloc_v2");
  EXPECT_EQ(snake_case("StreamSynchronize_ptsz"), "stream_synchronize_ptsz");
  EXPECT_EQ(snake_case("GLMapBuffer"), "gl_map_buffer");
  EXPECT_EQ(snake_case("devPtr"), "dev_ptr");
  EXPECT_EQ(snake_case("sizeInBytes"), "size_in_bytes");
  EXPECT_EQ(snake_case("already_snake"), "already_snake");
  EXPECT_EQ(snake_case("__leading"), "leading");
}

TEST(StdlibGenNaming, CommonLowercasePrefixEndsAtAWordBoundary) {
  EXPECT_EQ(common_lowercase_prefix({"cudaMemcpy", "cudaMemcpyAsync"}), "cuda");
  EXPECT_EQ(common_lowercase_prefix({"cudaMalloc"}), "cuda");
  EXPECT_EQ(common_lowercase_prefix({"ncclAllReduce", "ncclSend"}), "nccl");
  EXPECT_EQ(common_lowercase_prefix({"cuMemAlloc_v2", "cuLaunchKernel"}), "cu");
  EXPECT_EQ(common_lowercase_prefix({"pthread_mutex_lock", "pthread_cond_wait"}), "pthread");
  EXPECT_EQ(common_lowercase_prefix({"cudaFree", "cuLaunch"}), "");  // "cu" ends inside "cuda"
  EXPECT_EQ(common_lowercase_prefix({"malloc", "free"}), "");
  EXPECT_EQ(common_lowercase_prefix({"malloc"}), "");  // would leave nothing
  EXPECT_EQ(common_lowercase_prefix({}), "");
}

TEST(StdlibGenNaming, SeamIdentifiers) {
  EXPECT_EQ(seam_identifier("state"), "state_");
  EXPECT_EQ(seam_identifier("key"), "key_");
  EXPECT_EQ(seam_identifier("group"), "group_");  // `group within D`
  EXPECT_EQ(seam_identifier("count"), "count");   // a contextual word is a name
  EXPECT_EQ(seam_identifier("2d"), "_2d");
  EXPECT_EQ(seam_identifier("a.b"), "a_b");
}

TEST(StdlibGenNaming, Globs) {
  EXPECT_TRUE(glob_matches("cudaMemcpy*", "cudaMemcpyAsync"));
  EXPECT_TRUE(glob_matches("cudaMemcpy*", "cudaMemcpy"));
  EXPECT_FALSE(glob_matches("cudaMemcpy*", "cudaMalloc"));
  EXPECT_TRUE(glob_matches("cuda?alloc", "cudaMalloc"));
  EXPECT_TRUE(glob_matches("cuda[MF]*", "cudaFree"));
}

}  // namespace
}  // namespace seam::stdlib_gen
