#include "zlib_codec.h"

#include <zlib.h>


namespace gemmtune {

std::string zlib_compress(const std::string& bytes) {
  uLongf size = compressBound(uLong(bytes.size()));
  std::string out(size, '\0');
  // Level 9: a model is compressed once, at training, and read by every process.
  compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(bytes.data()),
            uLong(bytes.size()), 9);
  out.resize(size);
  return out;
}

Result<std::string> zlib_decompress(const std::string& stream) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Status(ErrorCode::internal, "zlib: inflateInit failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
  z.avail_in = uInt(stream.size());
  std::string out;
  char chunk[1 << 16];
  int result = Z_OK;
  while (result == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    result = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
    if (out.size() > kMaxInflatedBytes) result = Z_MEM_ERROR;
    // No progress with input left over, or none left before the stream's end: truncated.
    if (result == Z_BUF_ERROR || (result == Z_OK && z.avail_in == 0 && z.avail_out != 0)) result = Z_DATA_ERROR;
  }
  const bool whole = result == Z_STREAM_END && z.avail_in == 0;
  inflateEnd(&z);
  if (result == Z_MEM_ERROR) {
    return Status(ErrorCode::corrupt_data, "the compressed trees inflate past " + std::to_string(kMaxInflatedBytes >> 20) + " MiB");
  }
  if (!whole) return Status(ErrorCode::corrupt_data, "the compressed trees are damaged or truncated");
  return out;
}

}  // namespace gemmtune
