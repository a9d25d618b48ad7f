// The worker's request and reply lines: every field survives the trip, and a bad line is
// corrupt data with a message rather than a crash.
#include <gtest/gtest.h>

#include "backends/cuda/worker_protocol.h"

namespace gemmtune::cuda {
namespace {

TEST(WorkerProtocol, RequestRoundTripsEveryProblemFieldIncludingTf32) {
  VerifyRequest request;
  request.device = 1;
  request.problem = Problem::create(129, 257, 99, DType::f32, "nt")->spec();
  request.problem.allow_tf32 = true;
  request.problem.alpha = 0.75;
  request.problem.beta = 0.5;
  request.backend = "mma";
  request.config = *KernelConfig::parse("bm=64 bn=64 bk=32 stages=2 warps=4 gm=8 splitk=1");
  request.seed = 42;
  auto decoded = decode_request(encode(request));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().message();
  EXPECT_TRUE(decoded->problem.allow_tf32);
  EXPECT_EQ(decoded->problem.m, 129);
  EXPECT_EQ(decoded->problem.b_layout, request.problem.b_layout);
  EXPECT_EQ(decoded->problem.alpha, 0.75);
  EXPECT_EQ(decoded->config, request.config);
  EXPECT_EQ(decoded->seed, 42u);
}

TEST(WorkerProtocol, ReplyCarriesTheErrorCodeOfTheFailingStep) {
  VerifyReply reply;
  reply.reason = "device 'cuda:0': no CUDA device";
  reply.code = ErrorCode::unavailable;
  auto decoded = decode_reply(encode(reply));
  ASSERT_TRUE(decoded.is_ok()) << decoded.status().message();
  EXPECT_FALSE(decoded->ok);
  EXPECT_EQ(decoded->code, ErrorCode::unavailable);
  EXPECT_EQ(decoded->reason, reply.reason);
}

TEST(WorkerProtocol, MalformedLinesAreCorruptDataWithAMessage) {
  for (const char* line : {"", "{", "{\"ok\": true}", "[1,2]", "{\"ok\":false,\"error\":0,\"reason\":\"x\",\"code\":99}"}) {
    auto reply = decode_reply(line);
    ASSERT_FALSE(reply.is_ok()) << line;
    EXPECT_EQ(reply.status().code(), ErrorCode::corrupt_data) << line;
    auto request = decode_request(line);
    ASSERT_FALSE(request.is_ok()) << line;
    EXPECT_FALSE(request.status().message().empty());
  }
}

TEST(WorkerProtocol, RequestFieldsOutOfTheirRangeAreCorruptDataNamingTheField) {
  VerifyRequest request;
  request.problem = Problem::create(8, 8, 8, DType::f32)->spec();
  const nlohmann::json good = nlohmann::json::parse(encode(request));
  // 1e300 as an integer was an undefined conversion (UBSan in worker_protocol_fuzz); 2^32 as the
  // device and -1 as the seed were truncated without a word; dtype 9 and layout 7 reached the worker.
  for (const auto& [field, value] : {std::pair{"m", nlohmann::json(1e300)}, std::pair{"device", nlohmann::json(4294967296)},
                                     std::pair{"seed", nlohmann::json(-1)}, std::pair{"a_type", nlohmann::json(9)},
                                     std::pair{"b_layout", nlohmann::json(7)}, std::pair{"k", nlohmann::json(2.5)}}) {
    nlohmann::json line = good;
    line[field] = value;
    auto decoded = decode_request(line.dump());
    ASSERT_FALSE(decoded.is_ok()) << line.dump();
    EXPECT_EQ(decoded.status().code(), ErrorCode::corrupt_data);
    EXPECT_NE(decoded.status().message().find(field), std::string::npos) << decoded.status().message();
  }
  nlohmann::json reply = nlohmann::json::parse(encode(VerifyReply{}));
  reply["code"] = 1e300;
  EXPECT_FALSE(decode_reply(reply.dump()).is_ok());
}

}  // namespace
}  // namespace gemmtune::cuda
