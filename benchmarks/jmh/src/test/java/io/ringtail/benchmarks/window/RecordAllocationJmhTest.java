package io.ringtail.benchmarks.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The CI allocation guard as JMH sees it: a very short {@link RecordBenchmark} run with {@code
 * -prof gc}, asserting the normalised allocation of Ringtail's record paths is zero bytes per
 * operation. Dropwizard's reservoir, which stores every sample, runs beside them to show the
 * profiler does see allocation. Only allocation is asserted, never time.
 */
class RecordAllocationJmhTest {
  /**
   * Far below one object per record (16 B at least), above what JMH's own per-iteration allocation
   * amortises to even when a loaded machine completes few operations. Allocation only on rotation
   * is below this resolution: {@link RecordAllocationTest} bounds it exactly.
   */
  private static final double MAX_BYTES_PER_OP = 0.25;

  @Test
  void recordBenchmark_ringtailPaths_allocateZeroBytesPerOperation() throws RunnerException {
    Collection<RunResult> results =
        new Runner(
                new OptionsBuilder()
                    .include(RecordBenchmark.class.getName() + ".record1$")
                    .param(
                        "contender",
                        "RINGTAIL",
                        "RINGTAIL_RECORD_AT",
                        "RINGTAIL_ROTATING",
                        "DROPWIZARD")
                    .forks(1)
                    .warmupIterations(1)
                    .warmupTime(TimeValue.milliseconds(500))
                    .measurementIterations(1)
                    .measurementTime(TimeValue.milliseconds(500))
                    .addProfiler(GCProfiler.class)
                    .shouldFailOnError(true)
                    .build())
            .run();

    Map<String, Double> bytesPerOp = new HashMap<>();
    for (RunResult r : results) {
      Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
      assertThat(alloc)
          .as("gc.alloc.rate.norm for %s", r.getParams().getParam("contender"))
          .isNotNull();
      bytesPerOp.put(r.getParams().getParam("contender"), alloc.getScore());
    }
    assertThat(bytesPerOp)
        .containsOnlyKeys("RINGTAIL", "RINGTAIL_RECORD_AT", "RINGTAIL_ROTATING", "DROPWIZARD");
    assertThat(bytesPerOp.get("RINGTAIL")).isLessThan(MAX_BYTES_PER_OP);
    assertThat(bytesPerOp.get("RINGTAIL_RECORD_AT")).isLessThan(MAX_BYTES_PER_OP);
    assertThat(bytesPerOp.get("RINGTAIL_ROTATING")).isLessThan(MAX_BYTES_PER_OP);
    assertThat(bytesPerOp.get("DROPWIZARD")).isGreaterThanOrEqualTo(8.0);
  }
}
