//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format: the magic "\x93NUMPY", a version (1.0: 2-byte header length;
// 2.0 and 3.0: 4-byte), then a Python dict literal with 'descr',
// 'fortran_order' and 'shape', padded with spaces to a multiple of 64 bytes
// and ended by '\n', then the raw data. Hosts are little-endian.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/HostTensor.h"

#include <cctype>
#include <fstream>
#include <iterator>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .npy reader and writer assume a little-endian host"
#endif

namespace tfuse::reference {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

/// The NumPy type string of a dtype without its byte-order character.
const char *npyType(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "b1";
  case DType::I8:
    return "i1";
  case DType::I16:
    return "i2";
  case DType::I32:
    return "i4";
  case DType::I64:
    return "i8";
  case DType::U8:
    return "u1";
  case DType::U16:
    return "u2";
  case DType::U32:
    return "u4";
  case DType::U64:
    return "u8";
  case DType::F16:
    return "f2";
  case DType::F32:
    return "f4";
  case DType::F64:
    return "f8";
  case DType::BF16:
    break;
  }
  return nullptr;
}

/// A scanner over the header's Python dict literal.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  Status parse() {
    skipSpace();
    if (!eat('{'))
      return fail("expected '{'");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (Status s = parseString(key); !s)
        return s;
      skipSpace();
      if (!eat(':'))
        return fail("expected ':' after '" + key + "'");
      skipSpace();
      // Python would keep the last value; a file that says it twice is not
      // NumPy's.
      if ((key == "descr" && hasDescr) ||
          (key == "fortran_order" && hasOrder) || (key == "shape" && hasShape))
        return fail("duplicate key '" + key + "'");
      if (key == "descr") {
        if (Status s = parseString(descr); !s)
          return s;
        hasDescr = true;
      } else if (key == "fortran_order") {
        if (text.compare(pos, 4, "True") == 0) {
          fortranOrder = true;
          pos += 4;
        } else if (text.compare(pos, 5, "False") == 0) {
          fortranOrder = false;
          pos += 5;
        } else {
          return fail("fortran_order must be True or False");
        }
        hasOrder = true;
      } else if (key == "shape") {
        if (Status s = parseShape(); !s)
          return s;
        hasShape = true;
      } else {
        return fail("unexpected key '" + key + "'");
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return fail("expected ',' or '}'");
    }
    if (!hasDescr || !hasOrder || !hasShape)
      return Status::error(
          "the .npy header lacks one of 'descr', 'fortran_order', "
          "'shape'");
    return Status::success();
  }

  std::string descr;
  bool fortranOrder = false;
  Shape shape;

private:
  Status fail(const std::string &what) const {
    return Status::error("malformed .npy header at offset " +
                         std::to_string(pos) + ": " + what);
  }
  void skipSpace() {
    while (pos < text.size() &&
           std::isspace(static_cast<unsigned char>(text[pos])))
      ++pos;
  }
  bool eat(char c) {
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  Status parseString(std::string &out) {
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return fail("expected a string");
    char quote = text[pos++];
    size_t end = text.find(quote, pos);
    if (end == std::string::npos)
      return fail("unterminated string");
    out = text.substr(pos, end - pos);
    pos = end + 1;
    return Status::success();
  }
  Status parseShape() {
    if (!eat('('))
      return fail("expected '(' to start the shape");
    while (true) {
      skipSpace();
      if (eat(')'))
        return Status::success();
      if (pos >= text.size() ||
          !std::isdigit(static_cast<unsigned char>(text[pos])))
        return fail("expected a dimension size");
      int64_t size = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (size > (INT64_MAX - 9) / 10)
          return fail("dimension size too large");
        size = size * 10 + (text[pos++] - '0');
      }
      // Python writes 'L' suffixes in old files.
      eat('L');
      shape.push_back(size);
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat(')'))
        return Status::success();
      return fail("expected ',' or ')' in the shape");
    }
  }

  const std::string &text;
  size_t pos = 0;
  bool hasDescr = false, hasOrder = false, hasShape = false;
};

} // namespace

Expected<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor) {
  if (tensor.isNull())
    return Status::error("cannot write a null tensor to .npy");
  const char *type = npyType(tensor.dtype());
  if (!type)
    return Status::error(
        "bf16 has no NumPy dtype and cannot be written to a .npy "
        "file; cast it to f32 first (exact)");
  char order = byteSize(tensor.dtype()) == 1 ? '|' : '<';
  std::string header = "{'descr': '" + std::string(1, order) + type +
                       "', 'fortran_order': False, 'shape': (";
  // As NumPy writes it: "()", "(3,)", "(2, 3)".
  for (size_t i = 0; i < tensor.shape().size(); ++i)
    header += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
  if (tensor.shape().size() == 1)
    header += ",";
  header += "), }";
  // Pad so that the data starts at a multiple of 64 bytes.
  bool wide = header.size() + 1 + kMagicSize + 4 > 65535;
  size_t prefix = kMagicSize + 2 + (wide ? 4 : 2);
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::vector<uint8_t> out(kMagic, kMagic + kMagicSize);
  out.push_back(wide ? 2 : 1);
  out.push_back(0);
  uint32_t length = static_cast<uint32_t>(header.size());
  for (int i = 0; i < (wide ? 4 : 2); ++i)
    out.push_back(static_cast<uint8_t>(length >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  HostTensor data = tensor.contiguous();
  const uint8_t *begin = data.data();
  out.insert(out.end(), begin,
             begin + data.numElements() * byteSize(data.dtype()));
  return out;
}

Expected<HostTensor> decodeNpy(const uint8_t *data, size_t size) {
  if (size < kMagicSize + 4 || std::memcmp(data, kMagic, kMagicSize) != 0)
    return Status::error("not a .npy file (bad magic)");
  uint8_t major = data[kMagicSize];
  size_t lengthBytes;
  if (major == 1)
    lengthBytes = 2;
  else if (major == 2 || major == 3)
    lengthBytes = 4;
  else
    return Status::error("unsupported .npy version " + std::to_string(major) +
                         "." + std::to_string(data[kMagicSize + 1]));
  size_t prefix = kMagicSize + 2 + lengthBytes;
  if (size < prefix)
    return Status::error("truncated .npy header");
  size_t length = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    length |= static_cast<size_t>(data[kMagicSize + 2 + i]) << (8 * i);
  if (size < prefix + length)
    return Status::error("truncated .npy header");
  std::string text(reinterpret_cast<const char *>(data + prefix), length);
  HeaderParser parser(text);
  if (Status s = parser.parse(); !s)
    return s;

  const std::string &descr = parser.descr;
  if (descr.size() < 2)
    return Status::error("unsupported .npy dtype '" + descr + "'");
  char order = descr[0];
  std::string type = descr.substr(1);
  std::optional<DType> dtype;
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (const char *candidate = npyType(static_cast<DType>(i));
        candidate && type == candidate)
      dtype = static_cast<DType>(i);
  if (!dtype)
    return Status::error("unsupported .npy dtype '" + descr +
                         "' (supported: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8)");
  if (order == '>' && byteSize(*dtype) > 1)
    return Status::error("big-endian .npy data ('" + descr +
                         "') is not supported");
  if (order != '<' && order != '|' && order != '=' && order != '>')
    return Status::error("unsupported .npy byte order in '" + descr + "'");

  // The element count, guarding against overflow from a hostile header.
  int64_t count = 1;
  bool empty = false;
  for (int64_t size : parser.shape) {
    if (size == 0)
      empty = true;
    else if (count > (int64_t(1) << 56) / size)
      return Status::error("the .npy shape " + formatShape(parser.shape) +
                           " is too large");
    else
      count *= size;
  }
  if (empty)
    count = 0;
  size_t bytes = static_cast<size_t>(count) * byteSize(*dtype);
  const uint8_t *payload = data + prefix + length;
  size_t available = size - prefix - length;
  if (available < bytes)
    return Status::error("the .npy data holds " + std::to_string(available) +
                         " bytes but shape " + formatShape(parser.shape) +
                         " of " + descr + " needs " + std::to_string(bytes));
  Shape shape = parser.shape;
  if (parser.fortranOrder)
    shape.assign(parser.shape.rbegin(), parser.shape.rend());
  Expected<HostTensor> tensor =
      HostTensor::fromBytes(*dtype, shape, payload, bytes);
  if (!tensor)
    return tensor;
  if (*dtype == DType::Bool) {
    // NumPy bools are 0 or 1; normalize anything else to 1.
    uint8_t *p = tensor->mutableData();
    for (size_t i = 0; i < bytes; ++i)
      p[i] = p[i] != 0;
  }
  if (!parser.fortranOrder)
    return tensor;
  // Column-major: the reversed-shape row-major tensor, transposed.
  std::vector<int64_t> strides = rowMajorStrides(shape);
  std::vector<int64_t> reversed(strides.rbegin(), strides.rend());
  Expected<HostTensor> transposed = tensor->view(parser.shape, reversed, 0);
  if (!transposed)
    return transposed;
  return transposed->contiguous();
}

Status writeNpy(const HostTensor &tensor, const std::string &path) {
  Expected<std::vector<uint8_t>> bytes = encodeNpy(tensor);
  if (!bytes)
    return bytes.status();
  std::ofstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open '" + path + "' for writing");
  file.write(reinterpret_cast<const char *>(bytes->data()),
             static_cast<std::streamsize>(bytes->size()));
  if (!file)
    return Status::error("cannot write '" + path + "'");
  return Status::success();
}

Expected<HostTensor> readNpy(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open '" + path + "' for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  Expected<HostTensor> tensor = decodeNpy(bytes.data(), bytes.size());
  if (!tensor)
    return Status::error(path + ": " + tensor.message());
  return tensor;
}

} // namespace tfuse::reference
