package io.ringtail.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordTimingsTest {
  private static final int FLEET = RecordTimings.FLEET;
  private static final int LOCAL = RecordTimings.LOCAL;

  private static Path safepointLog(Path dir) throws Exception {
    Path log = dir.resolve("safepoints.log");
    Files.writeString(
        log,
        "[1000000ns] Safepoint \"Cleanup\", Time since last: 5 ns, Reaching safepoint: 1 ns,"
            + " Cleanup: 1 ns, At safepoint: 1 ns, Total: 500000 ns\n"
            + "[90000000ns] Safepoint \"G1CollectForAllocation\", Time since last: 5 ns, Reaching"
            + " safepoint: 1 ns, Cleanup: 1 ns, At safepoint: 1 ns, Total: 20000000 ns\n"
            + "a line of another kind\n");
    return log;
  }

  @Test
  void slowCalls_areClassifiedByTheSafepointsTheyOverlap(@TempDir Path dir) throws Exception {
    List<long[]> pauses = RecordTimings.pauses(safepointLog(dir));
    assertThat(pauses).hasSize(2);
    assertThat(pauses.get(1)).containsExactly(70_000_000, 90_000_000);

    RecordTimings records = new RecordTimings(2, 2);
    records.add(1, FLEET, 60_000_000, 75_000_000); // slow, overlaps the collection
    records.add(1, FLEET, 10_000_000, 12_000_000); // slow, between the pauses
    records.add(1, FLEET, 20_000_000, 20_000_100); // fast
    records.add(1, LOCAL, 80_000_000, 80_500_000); // inside the pause, but not over 1 ms
    records.add(1, FLEET, 91_000_000, 93_000_000); // slow, past the capacity of two
    long[] fleet = new long[4];
    records.addTo(1, FLEET, pauses, fleet);
    assertThat(fleet).containsExactly(15_000_000 + 2_000_000 + 100 + 2_000_000, 3, 1, 1);
    long[] local = new long[4];
    records.addTo(1, LOCAL, pauses, local);
    assertThat(local).containsExactly(500_000, 0, 0, 0);
    long[] otherPhase = new long[4];
    records.addTo(0, FLEET, pauses, otherPhase);
    assertThat(otherPhase).containsExactly(0, 0, 0, 0);
  }

  @Test
  void missingLog_meansNoPauses(@TempDir Path dir) throws Exception {
    assertThat(RecordTimings.pauses(dir.resolve("none.log"))).isEmpty();
  }

  /** Two threads' figures, printed as a child prints them, add up in the report's rows. */
  @Test
  void printedLines_addUpInTheTally(@TempDir Path dir) throws Exception {
    RecordTimings a = new RecordTimings(2, 10);
    RecordTimings b = new RecordTimings(2, 10);
    a.add(1, FLEET, 60_000_000, 75_000_000); // slow, during the collection
    b.add(1, FLEET, 10_000_000, 12_000_000); // slow
    b.add(1, LOCAL, 20_000_000, 20_000_200);
    a.add(1, LOCAL, 30_000_000, 30_000_300);
    a.add(0, LOCAL, 40_000_000, 45_000_000); // another phase
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RecordTimings.print(
        new RecordTimings[] {a, b},
        2,
        safepointLog(dir),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    RecordTimings.Tally tally = new RecordTimings.Tally();
    for (String line : bytes.toString(StandardCharsets.UTF_8).split("\n")) {
      assertThat(tally.accept(line.split(" "))).as(line).isTrue();
    }
    assertThat(tally.accept("COUNT k 1 2".split(" "))).isFalse();
    StringBuilder rows = new StringBuilder();
    tally.appendRows(rows, 1, "2 x 1", "up");
    String[] lines = rows.toString().split("\n");
    assertThat(lines).hasSize(2);
    assertThat(lines[0])
        .startsWith("| 2 x 1 | up | in-process KeyedWindows |")
        .contains("| 0 of 2 | 0 |")
        .endsWith("|  |");
    assertThat(lines[1])
        .startsWith("| 2 x 1 | up | keyed fleet window |")
        .contains("| 2 of 2 | 1 | 0.02 s |")
        .endsWith("| 2 of 2, p = 0.25 |");
  }

  @Test
  void atLeast_isTheUpperTailOfAFairCoin() {
    assertThat(RecordTimings.atLeast(0, 10)).isEqualTo(1.0);
    assertThat(RecordTimings.atLeast(10, 10)).isCloseTo(1 / 1024.0, within(1e-12));
    assertThat(RecordTimings.atLeast(6, 8)).isCloseTo((28 + 8 + 1) / 256.0, within(1e-12));
    assertThat(RecordTimings.atLeast(5, 10)).isCloseTo(638 / 1024.0, within(1e-12));
    assertThat(RecordTimings.atLeast(600, 1000)).isLessThan(1e-9);
  }
}
