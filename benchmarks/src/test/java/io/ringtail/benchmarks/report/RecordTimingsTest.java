package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlowRecordsTest {
  @Test
  void slowCalls_areClassifiedByTheSafepointsTheyOverlap(@TempDir Path dir) throws Exception {
    Path log = dir.resolve("safepoints.log");
    Files.writeString(
        log,
        "[1000000ns] Safepoint \"Cleanup\", Time since last: 5 ns, Reaching safepoint: 1 ns,"
            + " Cleanup: 1 ns, At safepoint: 1 ns, Total: 500000 ns\n"
            + "[90000000ns] Safepoint \"G1CollectForAllocation\", Time since last: 5 ns, Reaching"
            + " safepoint: 1 ns, Cleanup: 1 ns, At safepoint: 1 ns, Total: 20000000 ns\n"
            + "a line of another kind\n");
    List<long[]> pauses = SlowRecords.pauses(log);
    assertThat(pauses).hasSize(2);
    assertThat(pauses.get(1)).containsExactly(70_000_000, 90_000_000);

    SlowRecords records = new SlowRecords(2, 2, 2);
    records.add(1, 0, 60_000_000, 75_000_000); // slow, overlaps the collection
    records.add(1, 0, 10_000_000, 12_000_000); // slow, between the pauses
    records.add(1, 0, 20_000_000, 20_000_100); // fast
    records.add(1, 1, 80_000_000, 80_500_000); // inside the pause, but not over 1 ms
    records.add(1, 0, 91_000_000, 93_000_000); // slow, past the capacity of two
    long[] fleet = new long[4];
    records.addTo(1, 0, pauses, fleet);
    assertThat(fleet).containsExactly(15_000_000 + 2_000_000 + 100 + 2_000_000, 3, 1, 1);
    long[] local = new long[4];
    records.addTo(1, 1, pauses, local);
    assertThat(local).containsExactly(500_000, 0, 0, 0);
    long[] otherPhase = new long[4];
    records.addTo(0, 0, pauses, otherPhase);
    assertThat(otherPhase).containsExactly(0, 0, 0, 0);
  }

  @Test
  void missingLog_meansNoPauses(@TempDir Path dir) throws Exception {
    assertThat(SlowRecords.pauses(dir.resolve("none.log"))).isEmpty();
  }

  @Test
  void atLeast_isTheUpperTailOfAFairCoin() {
    assertThat(SlowRecords.atLeast(0, 10)).isEqualTo(1.0);
    assertThat(SlowRecords.atLeast(10, 10)).isCloseTo(1 / 1024.0, within(1e-12));
    assertThat(SlowRecords.atLeast(6, 8)).isCloseTo((28 + 8 + 1) / 256.0, within(1e-12));
    assertThat(SlowRecords.atLeast(5, 10)).isCloseTo(638 / 1024.0, within(1e-12));
    assertThat(SlowRecords.atLeast(600, 1000)).isLessThan(1e-9);
  }
}
