file(READ "${INPUT}" content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," content "${content}")
file(WRITE "${OUTPUT}"
  "// Generated from ${INPUT}; do not edit.\n#include <string_view>\n"
  "namespace { constexpr char kData[] = {${content} '\\0'}; }\n"
  "extern const std::string_view ${SYMBOL};\n"
  "const std::string_view ${SYMBOL}{kData, sizeof(kData) - 1};\n")
