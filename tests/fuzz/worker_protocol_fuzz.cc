// libFuzzer target for the messages between gemmtune and gemmtune-worker: any line is a
// request (or a reply) or a corrupt_data error, never a crash; what decodes encodes to a line
// that decodes the same. The first byte picks which side reads the rest.
#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/cuda/worker_protocol.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gemmtune;
  if (size == 0) return 0;
  const std::string line(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    auto reply = cuda::decode_reply(line);
    if (!reply.is_ok()) return fuzz::check_refusal(reply.status(), ErrorCode::corrupt_data, size), 0;
    const std::string encoded = cuda::encode(*reply);
    auto again = cuda::decode_reply(encoded);
    if (!again.is_ok() || cuda::encode(*again) != encoded) fuzz::fail();
  } else {
    auto request = cuda::decode_request(line);
    if (!request.is_ok()) return fuzz::check_refusal(request.status(), ErrorCode::corrupt_data, size), 0;
    const std::string encoded = cuda::encode(*request);
    auto again = cuda::decode_request(encoded);
    if (!again.is_ok() || cuda::encode(*again) != encoded) fuzz::fail();
  }
  return 0;
}
