package io.ringtail.slo;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringtail.ManualTimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** The code of docs/slo.md, run, and its table of the workbook's alerts, recomputed. */
class SloDocsExampleTest {
  private final ManualTimeSource time = new ManualTimeSource(1_000_000_000_000L);

  @Test
  void aServiceLevel_fromDefinitionToStatus() {
    // docs:slo-define:start
    ServiceLevelConfig checkout =
        ServiceLevelConfig.builder("checkout")
            .latency("fast", Duration.ofMillis(300), 0.99) // 99 % at most 300 ms
            .availability("available", 0.999) // 99.9 % not failed
            .period(Duration.ofDays(28)) // 30 days unless set
            .build(); // the workbook's page and ticket alerts unless alerts(...) is set
    ServiceLevel slo = ServiceLevel.inProcess(checkout, time);
    // docs:slo-define:end

    long latencyNanos = 120_000_000;
    boolean failed = false;
    for (int i = 0; i < 3600; i++) {
      time.advance(Duration.ofSeconds(1));
      // docs:slo-record:start
      slo.record(latencyNanos, failed); // once per request, on the request's thread
      // docs:slo-record:end
    }
    for (int i = 0; i < 600; i++) { // ten minutes of slow failures
      time.advance(Duration.ofSeconds(1));
      slo.record(900_000_000, true);
    }

    List<String> log = new ArrayList<>();
    // docs:slo-status:start
    ObjectiveStatus fast = slo.status().objective("fast");
    double sli = fast.sli(); // good / total over the 28 days
    double budgetLeft = fast.budgetRemaining(); // 1 whole, 0 spent, below 0 overspent
    double burn1h = fast.burnRate(Duration.ofHours(1)); // 1 spends the budget in exactly 28 days
    for (AlertStatus alert : fast.firing()) {
      log.add(alert.alert().name() + " burning at " + alert.value()); // page-1h, page-6h, ticket-3d
    }
    // docs:slo-status:end

    assertThat(sli).isEqualTo(3600.0 / 4200);
    assertThat(budgetLeft).isEqualTo(1 - (600.0 / 4200) / fast.objective().budget());
    assertThat(burn1h).isCloseTo(600.0 / 3600 / 0.01, org.assertj.core.data.Offset.offset(0.5));
    assertThat(log).hasSize(3);
    assertThat(log.get(0)).startsWith("page-1h burning at ");
    assertThat(slo.status().objective("available").firing()).hasSize(3);
  }

  @Test
  void theWorkbookTable_ofTheDocs_isWhatTheAlertsSay() throws IOException {
    String page = Files.readString(docs().resolve("slo.md"));
    for (BurnRateAlert a : BurnRateAlert.workbook()) {
      double outage = 1000; // every event failing a 99.9 % objective
      double twice = 2 * a.factor();
      String row =
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s %% | %s | %s | %s | %s |",
              a.name(),
              number(a.factor()),
              SloConventions.windowLabel(a.longWindow()),
              SloConventions.windowLabel(a.shortWindow()),
              number(100 * a.budgetConsumed(Duration.ofDays(30))),
              human(a.detectionTime(outage).orElseThrow()),
              human(a.resetTime(outage)),
              human(a.detectionTime(twice).orElseThrow()),
              human(a.resetTime(twice)));
      assertThat(page).as("docs/slo.md's row of %s", a.name()).contains(row);
    }
  }

  private static String number(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  /** A duration to the second: {@code 52 s}, {@code 4 min 56 s}, {@code 1 d 12 h}. */
  static String human(Duration d) {
    long s = Math.round(d.toNanos() / 1e9);
    String[] units = {"d", "h", "min", "s"};
    long[] sizes = {86_400, 3_600, 60, 1};
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < units.length; i++) {
      if (s >= sizes[i]) {
        parts.add(s / sizes[i] + " " + units[i]);
        s %= sizes[i];
      }
    }
    return String.join(" ", parts);
  }

  private static Path docs() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("docs"))) {
      dir = dir.getParent();
    }
    assertThat(dir).isNotNull();
    return dir.resolve("docs");
  }
}
