// The hybrid layer pattern and list-form pipeline layout readers, against Megatron-Core's own rules.
#include <gtest/gtest.h>

#include "lint/knowledge/hybrid_pattern.h"
#include "lint/knowledge/pipeline_layout.h"

namespace parlint {
namespace {

TEST(HybridPattern, CountsLayersSegmentsAndMtpDepths) {
  auto c = parse_hybrid_pattern("M-M*-|M-M*-/*E/*E");
  ASSERT_TRUE(c.pattern);
  EXPECT_TRUE(c.error.empty()) << c.error;
  EXPECT_EQ(c.pattern->layers, 10);
  EXPECT_EQ(c.pattern->segments.size(), 2u);
  EXPECT_EQ(c.pattern->mtp.size(), 2u);
  EXPECT_TRUE(c.pattern->has('M'));
  EXPECT_FALSE(c.pattern->has('G'));
  // A trailing '/' with nothing after it is no MTP depth (hybrid_layer_allocation.py:250-254).
  auto t = parse_hybrid_pattern("MM*/");
  EXPECT_TRUE(t.error.empty());
  EXPECT_TRUE(t.pattern->mtp.empty());
}

TEST(HybridPattern, RefusesWhatMegatronCoreRefuses) {
  EXPECT_NE(parse_hybrid_pattern("M-A-").error.find("'A' is not a valid layer symbol"), std::string::npos);
  EXPECT_NE(parse_hybrid_pattern("M*+").error.find("both Attention and MLA/DSA"), std::string::npos);
  EXPECT_NE(parse_hybrid_pattern("MM/M*/MM").error.find("must be identical"), std::string::npos);
  EXPECT_NE(parse_hybrid_pattern("MM/M|M").error.find("MTP pattern"), std::string::npos);
  // The layer count stays readable for a refused pattern.
  EXPECT_EQ(parse_hybrid_pattern("M-A-").pattern->layers, 3);
}

TEST(PipelineLayout, ListFormNamesBecomeStages) {
  std::string error;
  Value v =
      Value::list({Value::list({Value::string("Embedding"), Value::string(" decoder ")}),
                   Value::list({Value::string("decoder"), Value::string("MTP"), Value::string("loss")})});
  auto layout = pipeline_layout_from_value(v, error);
  ASSERT_TRUE(layout) << error;
  ASSERT_EQ(layout->stages.size(), 2u);
  EXPECT_EQ(layout->stages[0], "Et");
  EXPECT_EQ(layout->stages[1], "tmL");
}

TEST(PipelineLayout, ListFormRefusesUnknownNamesAndEncoders) {
  std::string error;
  EXPECT_FALSE(pipeline_layout_from_value(Value::list({Value::list({Value::string("attention")})}), error));
  EXPECT_NE(error.find("is not a valid LayerType"), std::string::npos);
  EXPECT_FALSE(pipeline_layout_from_value(Value::list({Value::list({Value::string("encoder")})}), error));
  EXPECT_NE(error.find("Encoder layer is not supported"), std::string::npos);
  // Not a layout parlint can read: no error, nothing to report.
  EXPECT_FALSE(pipeline_layout_from_value(Value::unknown("built by code"), error));
  EXPECT_TRUE(error.empty());
  EXPECT_FALSE(pipeline_layout_from_value(Value::list({Value::string("Et")}), error));
  EXPECT_TRUE(error.empty());
}

}  // namespace
}  // namespace parlint
