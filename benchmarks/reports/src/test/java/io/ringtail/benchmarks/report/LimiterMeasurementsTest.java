package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LimiterMeasurementsTest {
  /** Calls and µs per command, as {@code INFO commandstats} gives them. */
  private static Map<String, long[]> stats(Object... nameCallsUsec) {
    Map<String, long[]> stats = new TreeMap<>();
    for (int i = 0; i < nameCallsUsec.length; i += 3) {
      stats.put(
          (String) nameCallsUsec[i],
          new long[] {(Integer) nameCallsUsec[i + 1], (Integer) nameCallsUsec[i + 2]});
    }
    return stats;
  }

  @Test
  void aScriptCountsWhole_whatItCallsNotAgain() {
    // 1,000 FCALLs, each calling TIME, GETRANGE and SET: only FCALL's time is the decisions'
    Map<String, long[]> stats =
        stats(
            "fcall",
            1_000,
            7_000,
            "time",
            1_000,
            300,
            "getrange",
            1_000,
            1_300,
            "set",
            1_000,
            1_400,
            "info",
            1,
            90,
            "config|resetstat",
            1,
            80);
    Map<String, Double> shares = Map.of("fcall", 1.0, "time", 0.0, "getrange", 0.0, "set", 0.0);
    assertThat(LimiterMeasurements.redisMicros(stats, shares, 1_000)).isCloseTo(7.0, within(1e-9));
  }

  @Test
  void aCommandSentTopLevelAndCalledByAScript_countsAtItsTopLevelShare() {
    // 1,000 decisions: a GET from the client, then an EVAL that calls GET and PSETEX
    Map<String, long[]> stats =
        stats("get", 2_000, 2_000, "eval", 1_000, 3_000, "psetex", 1_000, 1_200);
    Map<String, Double> shares = Map.of("get", 0.5, "eval", 1.0, "psetex", 0.0);
    assertThat(LimiterMeasurements.redisMicros(stats, shares, 1_000)).isCloseTo(4.0, within(1e-9));
  }

  @Test
  void aCommandTheSampleDidNotSee_countsWhole_aScriptAlwaysWhole() {
    Map<String, long[]> stats = stats("evalsha", 10, 200, "zadd", 10, 50);
    // a sample that saw neither: both count whole (a script even at a share read as 0)
    assertThat(LimiterMeasurements.redisMicros(stats, Map.of("evalsha", 0.0), 10))
        .isCloseTo(25.0, within(1e-9));
  }
}
