package io.ringtail.examples.spend;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.SumCap;
import io.ringtail.decision.SumCapConfig;
import io.ringtail.decision.SumDecision;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A regulatory spend cap: no user may spend more than 10.00 EUR in any sliding week, decided by
 * Ringtail's {@link SumCap} with exact decimal amounts (3.33 + 3.33 + 3.34 reaches 10.00 exactly).
 * A purchase that does not fit is refused with the time until it would fit; a single purchase above
 * the cap is refused outright, since no wait would make it fit.
 *
 * <p>Run: {@code mvn -q -pl examples/plain-java -am compile exec:java
 * -Dexec.mainClass=io.ringtail.examples.spend.SpendCap}: replays a fortnight of purchases on a
 * simulated clock and prints each decision. Single-threaded.
 */
public final class SpendCap {
  static final BigDecimal CAP = new BigDecimal("10.00");
  static final Duration WEEK = Duration.ofDays(7);

  private SpendCap() {}

  /** One purchase attempt: when (from the start), who, how much. */
  record Purchase(Duration at, String user, String amount) {}

  /** A purchase and what the cap decided. */
  record Outcome(Purchase purchase, SumDecision decision) {}

  static final List<Purchase> SCENARIO =
      List.of(
          new Purchase(Duration.ofHours(9), "alice", "2.50"),
          new Purchase(Duration.ofHours(30), "alice", "2.50"),
          new Purchase(Duration.ofHours(50), "alice", "2.50"),
          new Purchase(Duration.ofHours(70), "alice", "2.50"),
          new Purchase(Duration.ofHours(71), "alice", "0.01"),
          new Purchase(Duration.ofHours(10), "bob", "3.33"),
          new Purchase(Duration.ofHours(11), "bob", "3.33"),
          new Purchase(Duration.ofHours(12), "bob", "3.34"),
          new Purchase(Duration.ofHours(13), "bob", "0.01"),
          new Purchase(Duration.ofHours(20), "carol", "12.00"),
          new Purchase(Duration.ofHours(21), "carol", "9.99"),
          new Purchase(Duration.ofDays(7).plusHours(9), "alice", "2.50"),
          new Purchase(Duration.ofDays(7).plusHours(8), "alice", "2.50"),
          new Purchase(Duration.ofDays(7).plusHours(13), "bob", "5.00"));

  public static void main(String[] args) {
    run(SCENARIO, System.out);
  }

  /** Decides every purchase in time order on a simulated clock; prints and returns each outcome. */
  static List<Outcome> run(List<Purchase> purchases, PrintStream out) {
    ManualTimeSource clock = new ManualTimeSource(0);
    SumCap cap =
        SumCap.inProcess(
            SumCapConfig.builder().cap(CAP).window(WEEK).scale(2).timeSource(clock).build());
    out.printf("At most %s EUR per user in any sliding %d days%n", CAP, WEEK.toDays());
    List<Outcome> outcomes = new ArrayList<>();
    purchases.stream()
        .sorted((a, b) -> a.at().compareTo(b.at()))
        .forEach(
            p -> {
              clock.set(p.at().toNanos());
              SumDecision d = cap.tryAdd(p.user(), new BigDecimal(p.amount()));
              outcomes.add(new Outcome(p, d));
              out.printf(
                  "%-13s %-6s %6s EUR  %s%n", when(p.at()), p.user(), p.amount(), explain(d));
            });
    return outcomes;
  }

  static String explain(SumDecision d) {
    if (d.allowed()) {
      return "allowed: " + d.total() + " spent this week, " + d.remaining() + " left";
    }
    if (d.exceedsCap()) {
      return "refused: above the " + d.cap() + " cap on its own, can never fit";
    }
    return "refused: "
        + d.total()
        + " already spent, fits again in "
        + human(d.retryAfter().orElseThrow());
  }

  private static String when(Duration at) {
    return String.format(
        Locale.ROOT, "day %d %02d:%02d", at.toDays() + 1, at.toHoursPart(), at.toMinutesPart());
  }

  private static String human(Duration d) {
    return String.format(
        Locale.ROOT, "%dd %dh %02dm", d.toDays(), d.toHoursPart(), d.toMinutesPart());
  }
}
