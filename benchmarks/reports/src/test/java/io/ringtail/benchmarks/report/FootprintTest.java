package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.ringtail.benchmarks.window.Contender;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code footprintBytes()} is counted by hand from size constants; this keeps it within 10 % of the
 * retained heap JOL measures by walking the object graph, for each in-process window kind, after a
 * minute of samples at 10,000/s (so every bucket is sealed and holds slots). Keyed windows report
 * the sum of their windows' footprints, so these cases cover them too.
 */
class FootprintTest {
  private static final double TOLERANCE = 0.10;

  @ParameterizedTest
  @EnumSource(
      names = {"RINGTAIL", "RINGTAIL_12_BUCKETS", "RINGTAIL_ONE_STRIPE", "RINGTAIL_COMPACT"})
  void footprintBytes_isWithinTenPercentOfJol(Contender.Kind kind) {
    MemoryReport.Row row = MemoryReport.measure(kind);
    assertThat((double) row.footprintBytes())
        .as(
            "%s: footprintBytes() %,d B, JOL %,d B",
            kind, row.footprintBytes(), row.retainedBytes())
        .isCloseTo(row.retainedBytes(), within(TOLERANCE * row.retainedBytes()));
  }
}
