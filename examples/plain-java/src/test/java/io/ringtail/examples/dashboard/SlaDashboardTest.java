package io.ringtail.examples.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SlaDashboardTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  /**
   * The real program, in real time: prints its address and a summary each second, then exits by
   * itself.
   */
  @Test
  void run_printsEachSecond_andExitsAfterItsDuration() throws Exception {
    int code =
        SlaDashboard.run(
            new String[] {"--duration", "3", "--port", "0", "--rate", "500"},
            print(out),
            print(err));

    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(code).isZero();
    assertThat(text).containsPattern("Ringtail SLA dashboard: http://127\\.0\\.0\\.1:\\d+/");
    assertThat(text).contains("   1/3 s [", "   2/3 s [", "Done after");
    assertThat(text)
        .containsPattern("last 60 s: [\\d,]+ req  mean [\\d.]+ ms  p95 [\\d.]+ ms  p99 [\\d.]+ ms");
    assertThat(text).doesNotContain("Exception");
    java.util.regex.Matcher done =
        java.util.regex.Pattern.compile(
                "Done after [\\d.]+ s: ([\\d,]+) requests served\\. Final: last 60 s: ([\\d,]+) req")
            .matcher(text);
    assertThat(done.find()).as(text).isTrue();
    assertThat(done.group(2))
        .as("four worker threads recorded concurrently; the window lost none")
        .isEqualTo(done.group(1));
    assertThat(Long.parseLong(done.group(1).replace(",", ""))).isPositive();
  }

  @Test
  void run_badFlag_printsUsageAndFails() throws Exception {
    int code = SlaDashboard.run(new String[] {"--rate", "fast"}, print(out), print(err));

    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("--rate must be a whole number, but was fast", "Usage: SlaDashboard");
  }

  @Test
  void run_help_printsUsage() throws Exception {
    assertThat(SlaDashboard.run(new String[] {"--help"}, print(out), print(err))).isZero();
    assertThat(out.toString(StandardCharsets.UTF_8))
        .contains("--duration", "--port", "--rate", "--redis");
  }

  @Test
  void parse_readsEveryFlag() {
    Options o =
        Options.parse(
            "--duration",
            "30",
            "--port",
            "8080",
            "--rate",
            "2000",
            "--workers",
            "3",
            "--slo-ms",
            "300",
            "--redis",
            "redis://localhost:6379");

    assertThat(o.duration()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.port()).isEqualTo(8080);
    assertThat(o.rate()).isEqualTo(2000);
    assertThat(o.workers()).isEqualTo(3);
    assertThat(o.sloMillis()).isEqualTo(300);
    assertThat(o.redis()).contains(URI.create("redis://localhost:6379"));
    assertThat(Options.parse()).isEqualTo(Options.defaults());
  }

  @Test
  void parse_badValues_nameTheFlagAndValue() {
    assertThatThrownBy(() -> Options.parse("--duration", "0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--duration must be between 1 and 86400, but was 0");
    assertThatThrownBy(() -> Options.parse("--port", "70000"))
        .hasMessage("--port must be between 0 and 65535, but was 70000");
    assertThatThrownBy(() -> Options.parse("--redis", "http://x"))
        .hasMessage("--redis must be a URL like redis://localhost:6379, but was http://x");
    assertThatThrownBy(() -> Options.parse("--colour", "red"))
        .hasMessageStartingWith("unknown flag --colour; flags: --duration, --port");
    assertThatThrownBy(() -> Options.parse("--rate")).hasMessage("--rate needs a value");
  }

  private static PrintStream print(ByteArrayOutputStream to) {
    return new PrintStream(to, true, StandardCharsets.UTF_8);
  }
}
