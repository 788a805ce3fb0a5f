package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The README's first example and the window page's test example, verbatim between the markers, so
 * they always compile and run.
 */
class ReadmeExampleTest {

  @Test
  void firstExample_compilesAndReportsWhatItRecorded() {
    // docs:first-example:start
    RollingWindow window =
        RollingWindow.create(
            WindowConfig.builder()
                .length(Duration.ofSeconds(60)) // what "the last N seconds" means
                .buckets(60) // rotates every second
                .significantDigits(2) // values resolved to within 1 %
                .build());

    long start = System.nanoTime();
    handleRequest();
    window.recordElapsedSince(start); // one clock read per record

    WindowSnapshot last60s = window.snapshot();
    System.out.printf(
        "count=%d mean=%.0f ns p95=%.0f ns p99=%.0f ns%n",
        last60s.count(),
        last60s.mean(),
        last60s.valueAtPercentile(95),
        last60s.valueAtPercentile(99));
    // docs:first-example:end

    assertThat(last60s.count()).isEqualTo(1);
    assertThat(last60s.min()).isGreaterThanOrEqualTo(0);
  }

  @Test
  void testingExample_movesTimeInsteadOfSleeping() {
    // docs:testing-your-own-code:start
    ManualTimeSource time = new ManualTimeSource();
    RollingWindow window = RollingWindow.create(WindowConfig.defaults(), time);
    window.record(250_000_000);
    time.advance(Duration.ofSeconds(61));
    assert window.snapshot().isEmpty();
    // docs:testing-your-own-code:end

    assertThat(window.snapshot().isEmpty()).isTrue();
  }

  @Test
  void readme_showsThisExampleVerbatim() throws IOException {
    String source = Files.readString(Path.of("src/test/java/io/ringtail/ReadmeExampleTest.java"));
    String code = between(source, "// docs:first-example:start\n", "// docs:first-example:end");
    String readme = Files.readString(Path.of("..", "README.md"));
    assertThat(readme).contains(code.stripIndent());
  }

  private static String between(String text, String from, String to) {
    int start = text.indexOf(from) + from.length();
    return text.substring(start, text.indexOf(to, start));
  }

  private static void handleRequest() {
    Thread.onSpinWait();
  }
}
