package io.ringtail.examples.logons;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BruteForceLogonsTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);

  /** The bundled sample: only the brute-forced admin account alerts, once, at its 10th failure. */
  @Test
  void run_sample_alertsOnlyForTheBruteForcedAccount() throws Exception {
    BruteForceLogons.Summary s =
        BruteForceLogons.run(BruteForceLogons.sample(), 10, Duration.ofSeconds(60), print);

    assertThat(s.alerts()).containsExactly("admin");
    assertThat(s.events()).isEqualTo(82);
    assertThat(s.failures()).isEqualTo(42);
    assertThat(s.duplicates()).as("evt-0076 is replayed once").isEqualTo(1);
    assertThat(s.expired()).as("evt-0081 arrives 2 min after its time").isEqualTo(1);
    assertThat(s.counted()).isEqualTo(40);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text)
        .contains(
            "ALERT 2026-03-14T09:03:19.800Z  account admin: 10 failed logons within 60 s"
                + " (last from 203.0.113.7, event evt-0078)");
    assertThat(text)
        .contains("evt-0076 replayed: not counted again", "evt-0081 is older than the window");
  }

  /**
   * Brute-force logons: the 10th event within the window trips a threshold-10 rule; the 9th does
   * not.
   */
  @Test
  void run_tenthFailureWithinWindowAlerts_ninthDoesNot() throws Exception {
    StringBuilder csv = new StringBuilder("time,event_id,account,source_ip,outcome\n");
    for (int i = 0; i < 9; i++) {
      csv.append("2026-03-14T10:00:%02dZ,e%d,jdoe,10.0.0.1,failure\n".formatted(i * 6, i));
    }
    assertThat(
            BruteForceLogons.run(
                    new StringReader(csv.toString()), 10, Duration.ofSeconds(60), print)
                .alerts())
        .isEmpty();

    csv.append("2026-03-14T10:00:59Z,e9,jdoe,10.0.0.1,failure\n");
    assertThat(
            BruteForceLogons.run(
                    new StringReader(csv.toString()), 10, Duration.ofSeconds(60), print)
                .alerts())
        .containsExactly("jdoe");
  }

  /**
   * Events that fell out of the window are not counted: ten failures spread over more than 60 s
   * never alert.
   */
  @Test
  void run_failuresSpreadBeyondTheWindow_neverAlert() throws Exception {
    StringBuilder csv = new StringBuilder();
    for (int i = 0; i < 30; i++) {
      csv.append(
          "2026-03-14T10:%02d:%02dZ,e%d,svc,10.0.0.9,failure\n"
              .formatted(i * 7 / 60, i * 7 % 60, i));
    }

    BruteForceLogons.Summary s =
        BruteForceLogons.run(new StringReader(csv.toString()), 10, Duration.ofSeconds(60), print);

    assertThat(s.counted()).isEqualTo(30);
    assertThat(s.alerts()).isEqualTo(List.of());
  }
}
