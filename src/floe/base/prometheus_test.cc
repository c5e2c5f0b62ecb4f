#include "floe/base/prometheus.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(PrometheusWriter, FamiliesSamplesAndEscaping) {
  std::string out;
  PrometheusWriter w(&out);
  w.Family("floe_x_total", "counter", "A help\\text\nwith a newline");
  w.Sample("floe_x_total", {{"table", "a\"b\\c\nd"}, {"catalog", "lake"}}, int64_t{42});
  w.Sample("floe_y", {}, 0.5);
  EXPECT_EQ(out,
            "# HELP floe_x_total A help\\\\text\\nwith a newline\n"
            "# TYPE floe_x_total counter\n"
            "floe_x_total{table=\"a\\\"b\\\\c\\nd\",catalog=\"lake\"} 42\n"
            "floe_y 0.5\n");
}

TEST(LatencyHistogram, CumulativeBucketsSumAndCount) {
  LatencyHistogram h;
  h.Observe(0.00005);  // first bucket
  h.Observe(0.001);    // le=0.001 (bounds are inclusive)
  h.Observe(0.003);    // le=0.005
  h.Observe(10.0);     // +Inf only
  std::string out;
  PrometheusWriter w(&out);
  h.Write(w, "lat", {{"route", "rest"}});
  EXPECT_NE(out.find("lat_bucket{route=\"rest\",le=\"0.0001\"} 1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("lat_bucket{route=\"rest\",le=\"0.0005\"} 1\n"), std::string::npos);
  EXPECT_NE(out.find("lat_bucket{route=\"rest\",le=\"0.001\"} 2\n"), std::string::npos);
  EXPECT_NE(out.find("lat_bucket{route=\"rest\",le=\"0.005\"} 3\n"), std::string::npos);
  EXPECT_NE(out.find("lat_bucket{route=\"rest\",le=\"2.5\"} 3\n"), std::string::npos);
  EXPECT_NE(out.find("lat_bucket{route=\"rest\",le=\"+Inf\"} 4\n"), std::string::npos);
  EXPECT_NE(out.find("lat_count{route=\"rest\"} 4\n"), std::string::npos);
  EXPECT_NE(out.find("lat_sum{route=\"rest\"} 10.00405"), std::string::npos) << out;
}

}  // namespace
}  // namespace floe
