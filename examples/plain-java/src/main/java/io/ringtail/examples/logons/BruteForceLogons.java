package io.ringtail.examples.logons;

import io.ringtail.ManualTimeSource;
import io.ringtail.decision.ThresholdConfig;
import io.ringtail.decision.ThresholdDecision;
import io.ringtail.decision.ThresholdDetector;
import io.ringtail.examples.Flags;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Brute-force logon correlation: reads authentication events and raises an alert when one account
 * collects {@code threshold} failed logons within a sliding {@code window}, with Ringtail's {@link
 * ThresholdDetector}. Events carry their own time and id, so late (out-of-order) events still
 * count, a replayed event is not counted twice, and an event older than the window is ignored. The
 * detector's listener alerts once per crossing, not on every further failure.
 *
 * <p>Run: {@code mvn -q -pl examples/plain-java -am compile exec:java
 * -Dexec.mainClass=io.ringtail.examples.logons.BruteForceLogons} (the bundled sample), or add
 * {@code -Dexec.args="--file events.csv --threshold 10 --window 60"} with a CSV of {@code
 * time,event_id,account,source_ip,outcome}. Single-threaded.
 */
public final class BruteForceLogons {
  static final String SAMPLE = "logons-sample.csv";

  private BruteForceLogons() {}

  /** What one run saw. Immutable. */
  record Summary(
      int events, int failures, int counted, int duplicates, int expired, List<String> alerts) {}

  public static void main(String[] args) throws IOException {
    Flags flags;
    try {
      flags = Flags.parse(args, "--file", "--threshold", "--window");
    } catch (Flags.HelpRequested e) {
      System.out.println(
          "flags: --file CSV (default: the bundled sample), --threshold N (default 10),"
              + " --window SECONDS (default 60)");
      return;
    }
    Path file = flags.string("--file").map(Path::of).orElse(null);
    int threshold = flags.positive("--threshold", 10);
    Duration window = Duration.ofSeconds(flags.positive("--window", 60));
    try (Reader in = file != null ? Files.newBufferedReader(file) : sample()) {
      run(in, threshold, window, System.out);
    }
  }

  static Reader sample() {
    return new InputStreamReader(
        Objects.requireNonNull(BruteForceLogons.class.getResourceAsStream(SAMPLE), SAMPLE),
        StandardCharsets.UTF_8);
  }

  /**
   * Feeds every failed logon in {@code csv} to a detector keyed by account; prints and returns what
   * happened.
   */
  static Summary run(Reader csv, int threshold, Duration window, PrintStream out)
      throws IOException {
    ManualTimeSource streamClock = new ManualTimeSource(Long.MIN_VALUE);
    List<String> alerts = new ArrayList<>();
    ThresholdDetector detector =
        ThresholdDetector.inProcess(
            ThresholdConfig.builder()
                .threshold(threshold)
                .window(window)
                .timeSource(streamClock)
                .listener((account, d) -> alerts.add(account))
                .build());
    out.printf(
        "Alert when one account has %d failed logons within %d s (by event time)%n",
        threshold, window.toSeconds());

    int events = 0;
    int failures = 0;
    int counted = 0;
    int duplicates = 0;
    int expired = 0;
    BufferedReader lines = new BufferedReader(csv);
    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
      if (line.isBlank() || line.startsWith("#") || line.startsWith("time,")) {
        continue;
      }
      String[] f = line.split(",", -1);
      if (f.length != 5) {
        throw new IllegalArgumentException("a line must have 5 fields, but was: " + line);
      }
      events++;
      if (!f[4].equals("failure")) {
        continue;
      }
      failures++;
      Instant at = Instant.parse(f[0]);
      long nanos = at.getEpochSecond() * 1_000_000_000L + at.getNano();
      if (nanos - streamClock.nanoTime() > 0) {
        streamClock.set(nanos);
      }
      int alertsBefore = alerts.size();
      ThresholdDecision d = detector.record(f[2], f[1], nanos);
      switch (d.outcome()) {
        case COUNTED -> counted++;
        case DUPLICATE -> {
          duplicates++;
          out.printf(
              "  %s  %-10s %s replayed: not counted again (%d in window)%n",
              f[0], f[2], f[1], d.count());
        }
        case EXPIRED -> {
          expired++;
          out.printf("  %s  %-10s %s is older than the window: ignored%n", f[0], f[2], f[1]);
        }
      }
      if (alerts.size() > alertsBefore) {
        out.printf(
            "ALERT %s  account %s: %d failed logons within %d s (last from %s, event %s)%n",
            f[0], f[2], d.count(), window.toSeconds(), f[3], f[1]);
      }
    }
    out.printf(
        "%d events, %d failed logons: %d counted, %d replays ignored, %d too old; alerts: %s%n",
        events, failures, counted, duplicates, expired, alerts);
    return new Summary(events, failures, counted, duplicates, expired, List.copyOf(alerts));
  }
}
